#!/usr/bin/env bash
# prop report --html and prop status --html: the fleet at a glance as one
# HTML page, read back with headless Chromium.  A real prop run --report
# on directory trees in scratch (a host ok, one changed, one with a failed
# property whose path holds markup, one unreachable: a closed port on
# loopback), a verify report in the shape prop verify --report writes
# (drift, a probe that failed, a newer run of a host), an older report
# the newer runs beat; then the DOM Chromium builds from the page: every
# host with its state and file, the failing properties with their lines,
# the markup shown as text (no element of it in the DOM), the worst
# first, the columns sorting on a click, no resource loaded from
# anywhere; a screenshot; bad report files refused with no page written.
source "$(dirname "$0")/common.sh"

skip_without python3
if ! command -v chromium >/dev/null 2>&1; then
  skip_missing chromium "chromium is not installed (apt-get install chromium): the pages are not checked"
fi

# chromium ARGS... URL: headless, its profile, home and temporary files in
# scratch.
chromium_run() {
  HOME="$TMP/chrome-home" TMPDIR="$TMP/chrome-tmp" timeout 60 chromium --headless --no-sandbox --disable-gpu \
    --user-data-dir="$TMP/chrome-profile" --no-first-run --disable-extensions "$@" 2>"$TMP/chromium.err"
}
mkdir -p "$TMP/chrome-home" "$TMP/chrome-profile" "$TMP/chrome-tmp"

# A port nothing listens on (bound, then closed at once).
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
mkdir -p "$TMP/ok/etc" "$TMP/chg/etc" "$TMP/bad/etc"
printf 'x\n' >"$TMP/ok/etc/motd"
EVIL="/no/<script>document.title='pwned'</script><b id=injected>x</b>/x"
cat >"$TMP/site.lua" <<EOF
host "ok1" { connect.dir "$TMP/ok", file.has_content("/etc/motd", "x\n") }
host "chg1" { connect.dir "$TMP/chg", file.has_content("/etc/motd", "y\n") }
host "bad1" {
  connect.dir "$TMP/bad",
  file.has_content("/etc/motd", "z\n"),
  file.has_content("$EVIL", "q\n"),
}
host "gone1" { connect.ssh { address = "127.0.0.1", port = $PORT }, file.has_content("/etc/motd", "x\n") }
EOF

# 1. A real run's report.
run_prop "$TMP/run.out" run "$TMP/site.lua" --report "$TMP/run.json" --connect-timeout 10
if [[ $rc == 69 && -s $TMP/run.json ]]; then pass; else fail "prop run --report" "exit $rc, expected 69 and a report" "$TMP/run.out"; fi

# 2. A verify report an hour newer (ok1 drifted since the run), and an
#    older report that the run of chg1 beats.
LATER="$(date -u -d "@$(($(date +%s) + 3600))" +%Y-%m-%dT%H:%M:%SZ)"
cat >"$TMP/verify.json" <<EOF
{"run":"0123456789abcdef0123456789abcdef","commit":"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678","dirty":true,
 "site":"site.lua","started":"$LATER","ended":"$LATER","dry_run":true,"verify":true,"twice":false,"exit":2,
 "hosts":[
 {"host":"db1","ok":3,"drift":1,"failed":0,"ms":120.5,"properties":[
  {"host":"db1","desc":"file /etc/postgresql/pg_hba.conf has content","origin":"site.lua:21","result":"drift","ms":2.0}]},
 {"host":"web2","ok":4,"drift":0,"failed":1,"ms":250.0,"properties":[
  {"host":"web2","desc":"service nginx running","origin":"site.lua:30","result":"ok","ms":1.0},
  {"host":"web2","desc":"nginx answers","origin":"site.lua:31","result":"failed","ms":40.0,
   "message":"would fail: verify: curl said <img src=x id=injected2 onerror=\"document.title='pwned'\"> 502"}]},
 {"host":"ok1","ok":0,"drift":1,"failed":0,"ms":9.0,"properties":[
  {"host":"ok1","desc":"file /etc/motd has content","origin":"site.lua:1","result":"drift","ms":1.0}]},
 {"host":"ok2","ok":7,"drift":0,"failed":0,"ms":30.0,"properties":[]}
 ]}
EOF
cat >"$TMP/old.json" <<'EOF'
{"run":"ffffffffffffffffffffffffffffffff","site":"site.lua","started":"2001-01-01T00:00:00Z",
 "ended":"2001-01-01T00:00:05Z","dry_run":false,"twice":false,"exit":1,
 "hosts":[{"host":"chg1","ok":0,"changed":0,"failed":1,"ms":1.0,"properties":[
  {"host":"chg1","desc":"old failure","origin":"old.lua:1","result":"failed","message":"long ago"}]}]}
EOF

run_prop "$TMP/report.out" report "$TMP/old.json" "$TMP/run.json" "$TMP/verify.json" --html "$TMP/page.html"
if [[ $rc == 0 && -s $TMP/page.html ]]; then pass; else fail "prop report --html" "exit $rc" "$TMP/report.out"; fi
# Without --html: the same rows as text.
run_prop "$TMP/text.out" report "$TMP/old.json" "$TMP/run.json" "$TMP/verify.json"
if [[ $rc == 0 ]] && grep -q '^bad1: failed at .* (from .*run.json)$' "$TMP/text.out" &&
  grep -q '^  probe failed: nginx answers (site.lua:31): would fail: verify' "$TMP/text.out" &&
  grep -q '^chg1: changed at' "$TMP/text.out"; then
  pass
else
  fail "prop report (text)" "exit $rc" "$TMP/text.out"
fi

# A --twice run: the second pass wins; hosts held back or interrupted; a
# run whose end is not a time is placed by its start.
cat >"$TMP/twice.json" <<'EOF'
{"run":"x","started":"2026-12-07T07:00:00Z","ended":"?","dry_run":false,"twice":true,"exit":1,"hosts":[
 {"host":"a","ok":1,"changed":2,"failed":0,"ms":3,"pass":1,"properties":[]},
 {"host":"a","ok":3,"changed":0,"failed":0,"ms":5,"pass":2,"properties":[]},
 {"host":"h","not_run":true,"held":true,"properties":[]},
 {"host":"i","not_run":true,"interrupted":true,"properties":[]}]}
EOF
run_prop "$TMP/twice.out" report "$TMP/twice.json"
if [[ $rc == 0 ]] && grep -q '^a: ok at 2026-12-07 07:00:00 UTC in 5.0 ms: 3 ok, 0 changed, 0 failed' "$TMP/twice.out" &&
  grep -q '^h: not run' "$TMP/twice.out" && grep -q '^i: interrupted' "$TMP/twice.out"; then
  pass
else
  fail "--twice, held, interrupted" "exit $rc" "$TMP/twice.out"
fi

# The page loads nothing: no URL in its style (its elements are checked
# in the DOM below).
if grep -Eiq 'url\(|@import' "$TMP/page.html"; then
  fail "self-contained" "the page's style loads a resource" "$TMP/page.html"
else
  pass
fi

# dom_check NAME DOM-FILE PYTHON-ASSERTIONS: the DOM parsed into rows.
dom_check() {
  local name=$1 dom=$2 code=$3
  if python3 - "$dom" "$code" >"$TMP/py.out" 2>&1 <<'EOF'; then
import sys
from html.parser import HTMLParser

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.cur, self.ids, self.scripts, self.res = [], None, [], 0, []
        self.title, self.in_title, self.summary, self.in_summary = "", False, "", 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("link", "img", "iframe", "object", "embed", "base") or "src" in a or "href" in a:
            self.res.append((tag, a))
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "script":
            self.scripts += 1
        if tag == "title":
            self.in_title = True
        if tag == "tbody" and "data-host" in a:
            self.cur = {"host": a["data-host"], "class": a.get("class", ""), "text": ""}
            self.rows.append(self.cur)
        if tag == "p" and a.get("id") == "summary":
            self.in_summary = 1
    def handle_endtag(self, tag):
        if tag == "tbody":
            self.cur = None
        if tag == "title":
            self.in_title = False
        if tag == "p":
            self.in_summary = 0
    def handle_data(self, d):
        if self.cur is not None:
            self.cur["text"] += d
        if self.in_title:
            self.title += d
        if self.in_summary:
            self.summary += d

d = Dom()
d.feed(open(sys.argv[1], encoding="utf-8").read())
rows = {r["host"]: r for r in d.rows}
order = [r["host"] for r in d.rows]
def row(host, cls, *texts):
    r = rows[host]
    assert ("s-" + cls) in r["class"].split(), (host, r["class"])
    for t in texts:
        assert t in r["text"], (host, t, r["text"])
assert d.res == [], d.res
exec(sys.argv[2])
EOF
    pass
  else
    fail "$name" "the DOM is not as expected" "$TMP/py.out"
  fi
}

# 3. The DOM Chromium makes of the page (its script run).
chromium_run --dump-dom "file://$TMP/page.html" >"$TMP/page.dom"
if [[ -s $TMP/page.dom ]]; then pass; else fail "chromium --dump-dom" "no DOM" "$TMP/chromium.err"; fi
dom_check "report page" "$TMP/page.dom" '
row("bad1", "failed", "failed", "site.lua:6", "does not exist", "run.json",
    "<script>document.title=\x27pwned\x27</script><b id=injected>x</b>")
row("gone1", "unreachable", "unreachable", "127.0.0.1", "run.json")
row("chg1", "changed", "changed", "run.json", "0 ok \u00b7 1 changed \u00b7 0 failed")
assert "old failure" not in rows["chg1"]["text"], rows["chg1"]
row("ok1", "drift", "drift", "verify.json", "site.lua:1", "a1b2c3d4e5f6", "+dirty")
row("db1", "drift", "drift", "site.lua:21", "pg_hba.conf", "120.5 ms", "verify.json")
row("web2", "probe", "probe failed", "site.lua:31", "would fail: verify: curl said <img src=x id=injected2")
assert "site.lua:30" not in rows["web2"]["text"]
row("ok2", "ok", "ok", "7 ok")
assert order == ["bad1", "web2", "gone1", "db1", "ok1", "chg1", "ok2"], order
assert "injected" not in d.ids and "injected2" not in d.ids, d.ids
assert d.scripts == 1, d.scripts
assert d.title == "prop report", d.title
s = " ".join(d.summary.split())
assert s == "7 hosts: 1 failed, 1 probe failed, 1 unreachable, 2 drift, 1 changed, 1 ok", s
'

# 4. A screenshot of it: a PNG with something in it.
chromium_run --screenshot="$TMP/report.png" --window-size=1200,900 "file://$TMP/page.html" >/dev/null
if [[ -s $TMP/report.png && "$(head -c 8 "$TMP/report.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] &&
  (($(wc -c <"$TMP/report.png") > 10000)); then
  pass
else
  fail "screenshot" "no PNG made" "$TMP/chromium.err"
fi

# 5. The column heads sort: a click (a script added to a copy of the page)
#    on host, on host again, on time.
sort_check() { # sort_check NAME CLICKS WANT-ORDER
  sed "s|</body>|<script>$2</script></body>|" "$TMP/page.html" >"$TMP/sort.html"
  chromium_run --dump-dom "file://$TMP/sort.html" >"$TMP/sort.dom"
  dom_check "$1" "$TMP/sort.dom" "assert order == $3, order"
}
CLICK_HOST="document.querySelector('th[data-key=host]').click();"
sort_check "sort by host" "$CLICK_HOST" '["bad1", "chg1", "db1", "gone1", "ok1", "ok2", "web2"]'
sort_check "sort by host, reversed" "$CLICK_HOST$CLICK_HOST" '["web2", "ok2", "ok1", "gone1", "db1", "chg1", "bad1"]'
sort_check "sort by time, newest first" "document.querySelector('th[data-key=time]').click();" \
  '["db1", "ok1", "ok2", "web2", "bad1", "chg1", "gone1"]'

# 6. Bad report files: named, exit 2, and the page as it was, with no
#    temporary file left beside it.
cp "$TMP/page.html" "$TMP/page.before"
printf '{"run": "x",\n "hosts": [tru]}\n' >"$TMP/broken.json"
run_prop "$TMP/bad1.out" report "$TMP/run.json" "$TMP/broken.json" --html "$TMP/page.html"
expect_rc "not JSON" 2 "broken.json:2:12: not valid JSON"
printf '{"a": 1}' >"$TMP/other.json"
run_prop "$TMP/bad2.out" report "$TMP/other.json" --html "$TMP/page.html"
expect_rc "not a report" 2 "other.json: not a report of prop run --report or prop verify --report"
run_prop "$TMP/bad3.out" report "$TMP/missing.json" --html "$TMP/page.html"
expect_rc "no such file" 2 "missing.json: cannot read it"
if cmp -s "$TMP/page.html" "$TMP/page.before" && [[ -z "$(find "$TMP" -maxdepth 1 -name '.page.html.*')" ]]; then
  pass
else
  fail "no page written" "the page changed or a temporary file is left"
fi
run_prop "$TMP/u1.out" report --html "$TMP/x.html"
expect_rc "no report named" 64 "no report named"
run_prop "$TMP/u2.out" report "$TMP/run.json" --html
expect_rc "--html without a file" 64 "--html wants a file name"
run_prop "$TMP/u3.out" report "$TMP/run.json" --html "$TMP/no/such/dir/x.html"
expect_rc "page not writable" 1 "cannot write there"

# 7. prop status --html: records in the hosts' trees (as prop pull writes
#    them), a host never pulled, one not reached.
mkdir -p "$TMP/ok/var/lib/prop"
cat >"$TMP/ok/var/lib/prop/last-run.json" <<EOF
{"version":1,"host":"ok1","time":"2026-12-05T11:51:42Z","epoch":1796471502,"seconds":1.500,
 "repo":"/srv/site.git","branch":"main","site":"site.lua","commit":"0123456789abcdef0123456789abcdef01234567",
 "signer":null,"result":"failed","exit":1,"ok":3,"changed":0,"failed":1,
 "hosts":[{"host":"ok1","ok":3,"changed":0,"failed":1}],
 "failures":[{"host":"ok1","property":"file $EVIL has content","origin":"site.lua:6",
  "error":"write $EVIL: denied"}],"failures_not_kept":0}
EOF
run_prop "$TMP/status.out" status "$TMP/site.lua" --html "$TMP/status.html" --connect-timeout 10
if [[ $rc == 69 && -s $TMP/status.html ]] && grep -q '^ok1: failed at' "$TMP/status.out"; then
  pass
else
  fail "prop status --html" "exit $rc, expected 69 and the page" "$TMP/status.out"
fi
chromium_run --dump-dom "file://$TMP/status.html" >"$TMP/status.dom"
dom_check "status page" "$TMP/status.dom" '
row("ok1", "failed", "failed", "site.lua:6", "0123456789ab", "1.5 s", "3 ok",
    "write /no/<script>document.title=\x27pwned\x27</script><b id=injected>x</b>/x: denied")
row("chg1", "notrun", "never pulled")
row("bad1", "notrun", "never pulled")
row("gone1", "unreachable", "unreachable")
assert order == ["ok1", "gone1", "bad1", "chg1"], order
assert "injected" not in d.ids, d.ids
assert d.scripts == 1 and d.title.startswith("prop status: "), (d.scripts, d.title)
'

finish
