#!/usr/bin/env node
// Read a gzipped pprof file with the pprof-format package, write it
// back with it, read that again, and compare: every message and field,
// strings resolved.  Prints "mappings M locations L functions F samples
// S" and exits 0 when both readings agree; 1 with a message otherwise.
//
// usage: pprof_roundtrip.js file.pb.gz
"use strict";

const { Profile } = require("pprof-format");
const fs = require("fs");
const zlib = require("zlib");

// A profile as plain data: ids and numbers as strings, string indices
// as the strings they name.
function plain(p) {
	const s = (i) => p.stringTable.strings[Number(i)];
	const n = (v) => String(v);
	return {
		sampleType: p.sampleType.map((t) => [s(t.type), s(t.unit)]),
		periodType: p.periodType ? [s(p.periodType.type),
		    s(p.periodType.unit)] : null,
		period: n(p.period),
		time: n(p.timeNanos),
		duration: n(p.durationNanos),
		comment: p.comment.map(s),
		mapping: p.mapping.map((m) => [n(m.id), n(m.memoryStart),
		    n(m.memoryLimit), n(m.fileOffset), s(m.filename),
		    s(m.buildId), m.hasFunctions, m.hasFilenames,
		    m.hasLineNumbers]),
		location: p.location.map((l) => [n(l.id), n(l.mappingId),
		    n(l.address), l.line.map((x) => [n(x.functionId),
		    n(x.line)])]),
		function: p.function.map((f) => [n(f.id), s(f.name),
		    s(f.systemName), s(f.filename), n(f.startLine)]),
		sample: p.sample.map((x) => [x.locationId.map(n),
		    x.value.map(n), x.label.map((l) => [s(l.key), s(l.str),
		    n(l.num)])]),
	};
}

const raw = zlib.gunzipSync(fs.readFileSync(process.argv[2]));
const first = Profile.decode(raw);
const again = Profile.decode(first.encode());
const a = JSON.stringify(plain(first));
const b = JSON.stringify(plain(again));
if (a !== b) {
	console.error("pprof_roundtrip: written back, the profile differs");
	process.exit(1);
}
console.log("mappings %d locations %d functions %d samples %d",
    first.mapping.length, first.location.length, first.function.length,
    first.sample.length);
