-- prop.facts: what a target says about itself, parsed from the facts
-- command's output, and gathered through sys.
local T = require "check"
local facts = prop_module "facts"
local fakesys = require "fakesys"

local out = table.concat({
   'os.ID=debian', 'os.ID_LIKE="Ubuntu Debian"', 'os.VERSION_ID="12"',
   'os.VERSION="12 (bookworm)"', 'os.PRETTY_NAME="Debian GNU/Linux 12 (\\"bookworm\\")"',
   "system=Linux", "kernel=6.1.0", "arch=x86_64", "dpkg_arch=amd64", "cpus=4",
   "memory_kb=2048", "hostname=web", "fqdn=", "ipv4=192.0.2.7",
   "if=lo", "if=eth0@if12", "addr=eth0 inet 192.0.2.7/24", "addr=eth0 inet6 2001:db8::7/64",
   "onion=ssh abcdefghij.onion", "onion=bad", "init=sysv", "container=docker",
   "Welcome to the machine!", "unknown_key=1",
}, "\n") .. "\n"
local f = facts.parse(out)
T.eq(f.os_id, "debian", "os_id")
T.eq(f.os_like, { "ubuntu", "debian" }, "os_like, lower-case")
T.eq(f.os_release, "12", "os_release unquoted")
T.eq(f.os_codename, "bookworm", "os_codename from VERSION")
T.eq(f.os_name, 'Debian GNU/Linux 12 ("bookworm")', "os_name: PRETTY_NAME, escapes undone")
T.eq({ f.system, f.kernel, f.arch, f.dpkg_arch }, { "Linux", "6.1.0", "x86_64", "amd64" }, "uname and dpkg")
T.eq(f.cpus, 4, "cpus, an integer")
T.eq(math.type(f.cpus), "integer", "cpus: integer type")
T.eq(f.memory, 2048 * 1024, "memory in bytes")
T.eq(f.fqdn, nil, "an empty value is left out")
T.eq(f.hostname, "web", "hostname")
T.eq(f.interface_names, { "eth0", "lo" }, "interface names, sorted, without @peer")
T.eq(f.interfaces.eth0, { name = "eth0", ipv4 = { "192.0.2.7/24" }, ipv6 = { "2001:db8::7/64" } },
     "an interface's addresses")
T.eq(f.onion, { ssh = "abcdefghij.onion" }, "onion services; a bad line is dropped")
T.eq({ f.init, f.container }, { "sysv", "docker" }, "init, container")
T.eq(f.unknown_key, nil, "unknown keys are not facts")
T.eq(facts.parse("os.ID=ubuntu\nos.UBUNTU_CODENAME=jammy\nmemory=1000\n").os_codename, "jammy",
     "os_codename from UBUNTU_CODENAME")
T.eq(facts.parse("memory=1000\n").memory, 1000, "memory in bytes (FreeBSD)")
T.eq(facts.parse("os.ID='alpine'\n").os_id, "alpine", "single quotes")

-- frozen
local fr = facts.frozen({ a = 1, t = { 2 } })
T.eq(fr.a, 1, "frozen: read")
T.raises(function() fr.b = 2 end, "sys.facts is read-only (setting b)", "frozen: no new key")
T.raises(function() fr.t[2] = 3 end, "sys.facts is read-only (setting 2)", "frozen: nested tables too")
T.eq(getmetatable(fr), false, "frozen: the metatable is hidden")
local n = 0
for _ in pairs(fr) do n = n + 1 end
T.eq(n, 2, "frozen: pairs")

-- gather
local sys = fakesys.new { replies = { sh = { code = 0, stdout = "system=Linux\ncpus=2\n" } } }
f = facts.gather(sys)
T.eq({ f.system, f.cpus }, { "Linux", 2 }, "gather: one command")
T.eq(sys.log[1], "sh -c " .. facts.script, "gather: the facts script")
T.raises(function() f.cpus = 3 end, "sys.facts is read-only", "gather: read-only")
sys = fakesys.new { replies = { sh = { code = 2, stderr = "no shell\n" } } }
T.raises(function() facts.gather(sys) end,
         "sys.facts: the command that gathers the facts exited with 2: no shell", "gather: the command fails")
sys = fakesys.new { transport = "dir:/srv/t",
                    files = { ["/usr/lib/os-release"] = 'ID=debian\nVERSION_CODENAME=trixie\n' } }
f = facts.gather(sys)
T.eq({ f.os_id, f.os_codename, f.tree, f.system }, { "debian", "trixie", true, nil },
     "gather: a tree's facts are its files'")
T.eq(#sys.log, 0, "gather: a tree runs no command")

-- facts the site defines: fact "name" { cmd = ..., file = ..., parse = ... }
local function site(src)
   return assert(load(src, "=site.lua", "t", _G))
end
T.raises(site('fact "v" { cmd = "nginx -v" }'),
         '(load:site.lua):1: fact "v": cmd must be a list such as', "fact: cmd a string")
T.raises(site('fact "v" { cmd = {} }'), '(load:site.lua):1: fact "v": cmd', "fact: cmd empty")
T.raises(site('fact "v" { }'), '(load:site.lua):1: fact "v": cmd = { "prog", "arg", ... }',
         "fact: neither cmd nor file")
T.raises(site('fact "v" { cmd = { "a" }, file = "/x" }'), '(load:site.lua):1: fact "v": give cmd',
         "fact: both cmd and file")
T.raises(site('fact "v" { file = "etc/x" }'), '(load:site.lua):1: fact "v": file must be an absolute path',
         "fact: a relative file")
T.raises(site('fact "v" { cmd = { "a" }, parse = "x" }'),
         '(load:site.lua):1: fact "v": parse must be a function(out, err)', "fact: parse not a function")
T.raises(site('fact "v" { cmd = { "a" }, prase = print }'),
         '(load:site.lua):1: fact "v": unknown key "prase" (did you mean "parse"?)', "fact: a typo")
T.raises(site('fact "kernel" { cmd = { "a" } }'), '(load:site.lua):1: fact "kernel": sys.facts.kernel is a built-in',
         "fact: a built-in name")
T.raises(site('fact "a-b" { cmd = { "a" } }'), '(load:site.lua):1: fact: the name must be a word', "fact: a bad name")
T.raises(site('fact(3)'), "(load:site.lua):1: fact: the name must be a string", "fact: not a name")
T.raises(site('fact "v" "x"'), '(load:site.lua):1: fact "v": the definition must be a table', "fact: no table")
site('\nfact "first" { cmd = { "a" } }')()
T.raises(site('fact "first" { cmd = { "b" } }'), '(load:site.lua):1: fact "first" is defined twice (first at (load:site.lua):2)',
         "fact: defined twice")
facts.defined, facts.defined_order = {}, {}

site([[
fact "major" { cmd = { "cat", "/etc/debian_version" }, parse = function(out) return tonumber(out:match("^(%d+)")) end }
fact "raw" { cmd = { "uname", "-r" } }
fact "fails" { cmd = { "false" } }
fact "raises" { cmd = { "cat", "/etc/debian_version" }, parse = function() error("no version here") end }
fact "ver" { file = "/etc/nginx/version", parse = function(text) return { major = text:match("^(%d+)") } end }
fact "nofile" { file = "/etc/none" }
]])()
sys = fakesys.new {
   replies = { sh = { code = 0, stdout = "system=Linux\n" }, cat = { code = 0, stdout = "12.5\n" },
               uname = { code = 0, stdout = " 6.1 \n" }, ["false"] = { code = 1, stderr = "oops\n" } },
   files = { ["/etc/nginx/version"] = "1.22\n" },
}
f = facts.gather(sys)
T.eq(f.system, "Linux", "site facts: the built-in ones still there")
T.eq(f.major, 12, "site facts: cmd and parse")
T.eq(f.major, 12, "site facts: asked again")
local cats = 0
for _, l in ipairs(sys.log) do if l == "cat /etc/debian_version" then cats = cats + 1 end end
T.eq(cats, 1, "site facts: run once per host")
T.eq(f.raw, "6.1", "site facts: no parse, the output trimmed")
T.eq(f.ver.major, "1", "site facts: file and parse, a table")
T.raises(function() f.ver.major = 2 end, "read-only", "site facts: a table is read-only")
T.raises(function() return f.fails end, 'fact "fails" ((load:site.lua):3): false exited with 1: oops',
         "site facts: the command fails")
T.raises(function() return f.raises end, 'fact "raises" ((load:site.lua):4): its parse function raised: (load:site.lua):4: no version here',
         "site facts: parse raises")
T.raises(function() return f.nofile end, 'fact "nofile" ((load:site.lua):6): /etc/none does not exist',
         "site facts: no such file")
local n_false = 0
T.raises(function() return f.fails end, 'fact "fails"', "site facts: the error again")
for _, l in ipairs(sys.log) do if l == "false" then n_false = n_false + 1 end end
T.eq(n_false, 1, "site facts: a failure is kept, not run again")
T.eq(f.undefined_one, nil, "site facts: an unknown name is nil")
T.eq(facts.site_json(sys),
     '{"major":{"value":12},"raw":{"value":"6.1"},"ver":{"value":{"major":"1"}},'
     .. '"fails":{"error":"fact \\"fails\\" ((load:site.lua):3): false exited with 1: oops"},'
     .. '"raises":{"error":"fact \\"raises\\" ((load:site.lua):4): its parse function raised: (load:site.lua):4: no version here"},'
     .. '"nofile":{"error":"fact \\"nofile\\" ((load:site.lua):6): /etc/none does not exist"}}',
     "site facts: as JSON, in the order used")
local other = fakesys.new { replies = { sh = { code = 0, stdout = "" } } }
facts.gather(other)
T.eq(facts.site_json(other), nil, "site facts: none used, no JSON")
T.eq(facts.json_value({ 1, "a\n\1", true, { x = 1.5 } }, 0), '[1,"a\\n\\u0001",true,{"x":1.5}]', "json values")
facts.defined, facts.defined_order = {}, {}

T.done()
