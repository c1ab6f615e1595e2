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

T.done()
