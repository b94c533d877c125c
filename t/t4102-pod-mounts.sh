#!/bin/sh
test_description='the DaemonSet: with only what its manifest mounts, pods are named as on the host

A pod is faked on this host: a burn in a kubepods cgroup of its own
(pod UID, containerd container id) and the kubelet log directories
that name it, under a node directory.  The daemon runs twice with the
same configuration: on the host (its /var/log the fake one, in a mount
namespace of its own), and as deploy/daemonset.yaml runs it
(t/helper/pod_run.sh: a new mount namespace whose read-only root holds
the image files and only the mounts the manifest lists, in the host PID
namespace as hostPID asks).  Both name the pod the same: the same
service, the same namespace, pod and container labels.  The image
itself is not built here: see deploy/README.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

SLICE=t4102.slice
. "$EBPFSPY_SOURCE_DIR/t/lib-slice.sh"
UID_=0c5c2a3e_1f7d_4b8e_9a6f_3d2e1c0b9a87
PUID=0c5c2a3e-1f7d-4b8e-9a6f-3d2e1c0b9a87
CID=8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d
POD=$CG/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$UID_.slice
SCOPE=$POD/cri-containerd-$CID.scope
MANIFEST=$EBPFSPY_SOURCE_DIR/deploy/daemonset.yaml

test_lazy_prereq UNSHARE 'unshare --mount true'

test_atexit 'rmdir "$SCOPE" "$POD" 2>/dev/null
	rmdir "$CG/kubepods.slice/kubepods-besteffort.slice" \
	    "$CG/kubepods.slice" 2>/dev/null; :'

# run_burn: 3 s of a burn in the pod cgroup.
run_burn () {
	sh -c "echo \$\$ >$SCOPE/cgroup.procs && exec ./b4102 -t 3" >burn.out
}

# labels DIR: the pod labels of the pprof files of DIR.
labels () {
	for f in "$1"/*.pb.gz; do
		python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" \
		    --summary "$f" || return 1
	done | grep -E "^comment: (namespace|pod|container|service_name)=" |
	sort -u
}

test_expect_success ROOT,BPF,CGROUP2,UNSHARE,PYTHON3 'a fake pod: its cgroup and its kubelet directories' '
	mkdir -p "$SCOPE" &&
	mkdir -p node/var/log/pods/shop_cart-7d9f_$PUID/app &&
	: >node/var/log/pods/shop_cart-7d9f_$PUID/app/0.log &&
	mkdir -p node/var/log/containers &&
	: >node/var/log/containers/cart-7d9f_shop_app-$CID.log &&
	mkdir conf &&
	cat >conf/ebpfspy.conf <<-\EOF &&
	[daemon]
	collect_interval = 60
	[profile]
	sample_rate = 997
	[metrics]
	listen =
	EOF
	mkworkload burn b4102
'

test_expect_success ROOT,BPF,CGROUP2,UNSHARE,PYTHON3 'on the host' '
	unshare --mount --propagation private sh -c "
	    mount --bind \"$TRASH_DIRECTORY/node/var/log\" /var/log &&
	    exec ebpfspyd -d -c \"$TRASH_DIRECTORY/conf/ebpfspy.conf\" \
		-o \"$TRASH_DIRECTORY/host\" -t 6" >host.log 2>&1 &
	dpid=$! &&
	sleep 2 &&
	run_burn &&
	wait $dpid &&
	ls host/cpu >host.services &&
	cat host.services &&
	test_path_is_dir host/cpu/shop_app &&
	labels host/cpu/shop_app >host.labels &&
	cat host.labels &&
	grep -x "comment: pod=cart-7d9f" host.labels
'

test_expect_success ROOT,BPF,CGROUP2,UNSHARE,PYTHON3 'as the DaemonSet runs it: the same names' '
	mkdir -p node/var/lib/ebpfspy &&
	sh "$EBPFSPY_SOURCE_DIR/t/helper/pod_run.sh" "$MANIFEST" \
	    "$TRASH_DIRECTORY/node" "$TRASH_DIRECTORY/conf" \
	    "$EBPFSPY_BUILD_DIR/ebpfspyd" -d -c /etc/ebpfspy/ebpfspy.conf \
	    -o /var/lib/ebpfspy/out -t 6 >pod.log 2>&1 &
	dpid=$! &&
	sleep 2 &&
	run_burn &&
	wait $dpid || { cat pod.log; false; } &&
	grep "^ready: " pod.log &&
	out=node/var/lib/ebpfspy/out &&
	test_path_is_dir $out/cpu/shop_app &&
	labels $out/cpu/shop_app >pod.labels &&
	test_cmp host.labels pod.labels &&
	cat $out/cpu/shop_app/*.folded | grep -q "^b4102;"
'

test_done
