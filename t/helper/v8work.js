// v8work.js MODE SECONDS: Node.js workloads with distinctive function
// names, for the t71xx tests.  Prints "ready PID" once started.  Lines
// the tests look up carry a "// @name" marker.  Times are the
// process's CPU time: a busy machine still gets the samples.  Each
// lingers a second before it exits: the daemon names the functions of
// a new stack from the process's memory when it hears of it, and on a
// loaded machine it may hear of the last ones a little late.
//
//   fib      fibRecurse() recursive, from fibMain()
//   hot      hotLoop() called from hotMain(): optimized by TurboFan
//   async    asyncWork() awaits a timer, then computes in asyncCompute()
//   offcpu   blockWait() blocks in Atomics.wait, 50 ms at a time,
//            SECONDS in all; prints "blocked NS"
'use strict';

const mode = process.argv[2];
const seconds = Number(process.argv[3] || 2);

function cpuSeconds() {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1e6;
}

function fibRecurse(n) {
	return n < 2 ? n : fibRecurse(n - 1) + fibRecurse(n - 2);	// @fib
}

function fibMain() {
	let s = 0;
	while (cpuSeconds() < seconds)
		s += fibRecurse(25);	// @fibmain
	return s;
}

function hotLoop(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s = (s + i * i) % 1000003;	// @hot
	return s;
}

function hotMain() {
	let s = 0;
	while (cpuSeconds() < seconds)
		s += hotLoop(2000000);	// @hotmain
	return s;
}

function asyncCompute(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s = (s * 31 + i) % 999983;	// @acompute
	return s;
}

async function asyncWork() {
	let s = 0;
	while (cpuSeconds() < seconds) {
		await new Promise((r) => setTimeout(r, 1));
		s += asyncCompute(3000000);	// @awork
	}
	return s;
}

function blockWait(ia) {
	Atomics.wait(ia, 0, 0, 50);	// @block
}

function blockMain() {
	const ia = new Int32Array(new SharedArrayBuffer(4));
	const end = process.hrtime.bigint() + BigInt(seconds * 1e9);
	let t0 = process.hrtime.bigint(), blocked = 0n;

	while (t0 < end) {
		blockWait(ia);
		const t1 = process.hrtime.bigint();
		blocked += t1 - t0;
		t0 = t1;
	}
	return blocked;
}

console.log('ready ' + process.pid);
setTimeout(() => {}, 1000);
if (mode === 'fib')
	console.log('done ' + fibMain());
else if (mode === 'hot')
	console.log('done ' + hotMain());
else if (mode === 'async')
	asyncWork().then((s) => console.log('done ' + s));
else if (mode === 'offcpu')
	console.log('blocked ' + blockMain());
else {
	console.error('usage: v8work.js fib|hot|async|offcpu SECONDS');
	process.exit(2);
}
