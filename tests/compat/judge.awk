# Judges one run of a tests/compat/scripts batch: what unic-testpmd printed
# (stdout and stderr in one file, run with --continue) against the script.
#
#   awk -v pass=PASS -f judge.awk PENDING SCRIPT OUTPUT
#
# PASS names the run (e1000e, virtio, ...); PENDING lists the lines not parsed
# yet (tests/compat/pending.txt).  Each line of the script is
#   parsed and accepted, or
#   refused with -ENOTSUP (a line ending "(-ENOTSUP)": the driver's missing
#     capability, named by the message), or
#   pending: listed in PENDING and refused by the parser;
# anything else fails: a parse error (an "unknown command" or "usage:" line)
# on a line not pending, a pending line the parser now takes, a failure
# other than -ENOTSUP, a batch that ended early.  Then the expectations:
# "#> KIND ARGS" (every pass) or "#>PASS KIND ARGS" (that pass only) after a
# command judge that command's output:
#   has REGEX | hasnt REGEX          a line matches REGEX (none matches)
#   refused REGEX                    the command failed, a line matches REGEX
#   stat PORT KEY OP N               KEY (RX-packets...) of port PORT in the
#                                    "NIC statistics" the command printed
#   fstat PORT KEY OP N              the same in its "Forward statistics"
#   rxq PORT QUEUE OP N              RX-packets of rx queue QUEUE of port PORT
#                                    in the per-stream statistics of 'stop'
# with OP one of -eq -ne -gt -ge -lt -le.  Prints "ok   ..." or "FAIL ..."
# per judgement and exits 1 if anything failed.  With -v parse_only=1 (a
# run on ring pairs, which filter nothing and hash nothing) only the parser's
# verdicts are judged: parse errors and pending lines.
function fail(msg) { print "FAIL " msg; failed++ }
function cmp(a, op, b) {
	a += 0; b += 0
	if (op == "-eq") return a == b
	if (op == "-ne") return a != b
	if (op == "-gt") return a > b
	if (op == "-ge") return a >= b
	if (op == "-lt") return a < b
	if (op == "-le") return a <= b
	return -1
}
# the value after "KEY:" in the block of command i under a header line
# matching head whose field f is port p (stop at a line matching end)
function blockval(i, head, p, key, end,   j, n, on, w, k) {
	on = 0
	for (j = 1; j <= no[i]; j++) {
		if (index(out[i, j], head)) {
			n = split(out[i, j], w, " ")
			on = (w[6] == p)
			continue
		}
		if (end != "" && index(out[i, j], end))
			on = 0
		if (!on)
			continue
		n = split(out[i, j], w, " ")
		for (k = 1; k < n; k++)
			if (w[k] == key ":")
				return w[k + 1]
	}
	return ""
}
function rxqval(i, p, q,   j, w) {
	for (j = 1; j < no[i]; j++)
		if (index(out[i, j], "Forward Stats for RX Port= " p "/Queue= " q " ->")) {
			split(out[i, j + 1], w, " ")
			if (w[1] == "RX-packets:")
				return w[2]
		}
	return ""
}
function anyline(i, re,   j) {
	for (j = 1; j <= no[i]; j++)
		if (out[i, j] ~ re)
			return out[i, j]
	return ""
}
function expect(i, e,   w, n, kind, re, v, what, r) {
	n = split(e, w, " ")
	kind = w[1]
	re = e
	sub(/^[a-z]+ /, "", re)
	what = "line " line[i] " '" cmd[i] "': " e
	if (kind == "has" || kind == "hasnt") {
		v = anyline(i, re)
		if ((v != "") == (kind == "has"))
			print "ok   " what (v != "" ? "  [" v "]" : "")
		else
			fail(what (v != "" ? ": found [" v "]" : ": no such line"))
		return
	}
	if (kind == "refused") {
		v = anyline(i, re)
		if (bad[i] == "refused" && v != "")
			print "ok   " what "  [" v "]"
		else
			fail(what ": " (bad[i] == "refused" ? "no such line" : "the command was not refused"))
		return
	}
	if (kind == "stat" && n == 5)
		v = blockval(i, "NIC statistics for port", w[2], w[3], "")
	else if (kind == "fstat" && n == 5)
		v = blockval(i, "Forward statistics for port", w[2], w[3], "Accumulated forward")
	else if (kind == "rxq" && n == 5)
		v = rxqval(i, w[2], w[3])
	else {
		fail(what ": not an expectation this judge knows")
		return
	}
	if (v == "") {
		fail(what ": no such figure in the output")
		return
	}
	r = cmp(v, w[4], w[5])
	if (r < 0)
		fail(what ": unknown operator " w[4])
	else if (r)
		print "ok   " what "  [" v "]"
	else
		fail(what ": got " v)
}
FILENAME == ARGV[1] {
	if ($0 !~ /^[ \t]*(#|$)/)
		pend[$0] = 1
	next
}
FILENAME == ARGV[2] {
	# unic-testpmd echoes every line of the batch, comments and blank ones
	# too: output block n is the output of script line n.
	nl = FNR
	sline[FNR] = $0
	if ($0 ~ /^#>/) {
		e = substr($0, 3)
		if (e ~ /^ /)
			sub(/^ +/, "", e)
		else if (substr(e, 1, length(pass) + 1) == pass " ")
			e = substr(e, length(pass) + 2)
		else
			next
		ne[nc]++
		ex[nc, ne[nc]] = e
		next
	}
	if ($0 ~ /^[ \t]*(#|$)/)
		next
	nc++
	cmd[nc] = $0
	line[nc] = FNR
	byline[FNR] = nc
	next
}
/^testpmd> / {
	k++
	if (substr($0, 10) != sline[k] && mismatch == "")
		mismatch = "line " k " echoed as '" substr($0, 10) "', the script has '" sline[k] "'"
	if (k in byline)
		blk = byline[k]
	else
		blk = 0
	next
}
blk > 0 { out[blk, ++no[blk]] = $0 }
END {
	if (mismatch != "")
		fail(mismatch)
	if (k != nl)
		fail("the batch ran " k + 0 " of " nl " lines")
	for (i = 1; i <= nc; i++) {
		parse = anyline(i, "^(unknown command '|usage: )")
		failedl = anyline(i, ": the command failed; going on")
		notsup = anyline(i, "\\(-ENOTSUP\\)$")
		what = "line " line[i] " '" cmd[i] "'"
		if (cmd[i] in pend) {
			if (parse != "") {
				print "pending " what ": " out[i, 1]
				bad[i] = "pending"
				npend++
			} else {
				fail(what " is in tests/compat/pending.txt but parses now: take it out of the list")
			}
			continue
		}
		if (parse != "") {
			fail(what ": parse error: " out[i, 1])
			bad[i] = "parse"
		} else if (parse_only) {
			nok++
			continue
		} else if (failedl != "" && notsup == "") {
			fail(what ": failed, not with -ENOTSUP: " out[i, 1])
			bad[i] = "failed"
		} else if (failedl != "") {
			print "refused " what ": " notsup
			bad[i] = "refused"
			nref++
		} else {
			nok++
		}
		for (j = 1; j <= ne[i]; j++)
			expect(i, ex[i, j])
	}
	for (i = 1; i <= nc; i++)
		if (bad[i] == "pending")
			for (j = 1; j <= ne[i]; j++)
				print "skip line " line[i] " (pending): " ex[i, j]
	printf "%s: %d lines: %d accepted, %d refused (-ENOTSUP), %d pending; %d failed\n",
		pass, nc, nok, nref, npend, failed
	exit (failed > 0)
}
