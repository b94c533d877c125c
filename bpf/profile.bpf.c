#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include "profile.h"

char LICENSE[] SEC("license") = "GPL";
