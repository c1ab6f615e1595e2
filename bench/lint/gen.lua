-- gen.lua: write benchmark sites for `prop lint`.
--
--   lua5.4 gen.lua literal N    a site of N hosts, every host written out
--   lua5.4 gen.lua loop N       the same N hosts, built by a Lua loop
--   lua5.4 gen.lua onehost N    one host of N properties (prop side)
--   lua5.4 gen.lua propellor N  that host as a Propellor config (Haskell)
--
-- The site goes to standard output; its first line is a comment
-- "-- properties: P" (Haskell: "-- properties: P") giving the number of
-- properties it declares (recipe calls and info, not combinators).
-- Every generated site must lint clean: ports, addresses, uids and file
-- paths are distinct where the pre-pass requires them to be.

local mode, n = arg[1], tonumber(arg[2])
if not (mode and n and n >= 1) then
  io.stderr:write("usage: lua5.4 gen.lua literal|loop|onehost|propellor N\n")
  os.exit(64)
end
n = math.floor(n)

local out = {}
local function emit(s) out[#out + 1] = s end

local function q(s) return string.format("%q", s) end

-- An address of 198.18.0.0/15 (set aside for benchmarks): 131,070 hosts.
local function ipv4_of(i)
  local v = i + 1
  return string.format("198.%d.%d.%d", 18 + (v >> 16), (v >> 8) & 255, v & 255)
end

local function name_of(i) return string.format("h%06d.example.com", i) end

-- The properties of host i, as Lua expressions with literal values.
-- Returns the list of expressions and the number of properties in them.
local function host_props(i)
  local name = name_of(i)
  local p, count = {}, 0
  local function add(expr, c)
    p[#p + 1] = expr
    count = count + (c or 1)
  end
  add('os.debian("bookworm", "amd64")')
  add("ipv4 " .. q(ipv4_of(i)))
  add(string.format('ipv6 "2001:db8::%x:%x"', (i + 1) >> 16, (i + 1) & 0xffff))
  add("alias " .. q("www-" .. name))
  add("hostname.set " .. q(name))
  add("apt.std_sources_list()")
  add("apt.update()")
  add('apt.installed { "openssh-server" }')
  add('apt.installed { "curl", "ca-certificates" }')
  add('apt.installed { "vim-nox" }')
  add('apt.installed { "htop", "tmux" }')
  add('apt.installed { "chrony" }')
  add('apt.installed { "unattended-upgrades" }')
  add('file.has_content("/etc/motd", "' .. name .. ' is managed by prop\\n")')
  for k = 1, 6 do
    add(string.format(
      'file.has_content("/etc/app/part%d.conf", { "# %s part %d", "listen = %s", '
        .. '"workers = %d", "log = /var/log/app/part%d.log" }, { mode = "0640" })',
      k, name, k, ipv4_of(i), 2 + k % 4, k))
  end
  add('file.contains_lines("/etc/ssh/sshd_config", '
    .. '{ "PermitRootLogin prohibit-password", "PasswordAuthentication no" })')
  add('file.contains_lines("/etc/security/limits.conf", { "* soft nofile 65536" })')
  add('file.contains_lines("/etc/sysctl.conf", { "vm.swappiness = 10" })')
  add('file.directory("/srv/app", { mode = "0755", owner = "app", group = "app" })')
  add('file.directory("/var/log/app")')
  add('file.symlink("/etc/app/current.conf", "/etc/app/part1.conf")')
  add('file.absent("/etc/cron.daily/obsolete")')
  add('file.mode("/etc/ssh/ssh_host_ed25519_key", "0600")')
  add('group.exists("app", { gid = 1500 })')
  add('user.account("app", { uid = 1500, gid = 1500, shell = "/bin/bash", '
    .. 'home = "/srv/app", groups = { "adm" } })')
  add(string.format('user.account("deploy", { uid = %d, shell = "/bin/sh" })', 1501))
  add(string.format('user.account("backup%d", { uid = %d })', i % 7, 1502))
  add('cron.job("backup", "0 3 * * *", { "/usr/local/bin/backup", "--quiet" }, { user = "root" })')
  add(string.format('cron.job("rotate", "%d * * * *", { "/usr/sbin/logrotate", '
    .. '"/etc/logrotate.conf" })', i % 60))
  add('service.running "ssh"')
  add('service.running "cron"')
  add('service.enabled "chrony"')
  -- Chains, as in the Propellor talk's securefoo.
  add('apt.installed { "nginx" }\n'
    .. '    :requires(file.has_content("/etc/nginx/sites-enabled/default", '
    .. '{ "server {", "  server_name ' .. name .. ";\", \"}\" }))\n"
    .. '    :on_change(service.restarted "nginx")', 3)
  add('apt.installed { "foo" }\n'
    .. '    :requires(file.contains_lines("/etc/foo", { "secure=1" }))\n'
    .. '    :on_change(service.restarted "foo")', 3)
  add('cmd.run({ "/usr/local/bin/app-migrate" }, { creates = "/srv/app/.migrated" })\n'
    .. '    :fallback(cmd.run { "/usr/local/bin/app-rollback" })', 2)
  add('pick_os(apt.installed { "ntpsec" }, pkg.installed { "ntpsec" })', 2)
  add("packages.upgraded()")
  -- Some revertables reverted.
  add('revert(apt.installed { "telnet", "rsh-client" })')
  add('revert(file.contains_lines("/etc/hosts.deny", { "ALL: 198.51.100.0/24" }))')
  add('revert(revertable(service.running "rpcbind", service.stopped "rpcbind"))', 2)
  if i % 2 == 0 then
    add("apache.installed()")
  else
    add("tor.bridge()")
  end
  -- The check and apply functions are shared, defined once at the top of
  -- the file: a Lua function holds at most 131071 closures, so a chunk of
  -- 100,000 hosts cannot make two new ones per host.
  add(string.format([[property {
    desc = "node exporter listens on %d",
    ports = { 9100 },
    check = exporter_present,
    apply = exporter_install,
  }]], 9100))
  return p, count
end

-- The loop variant: the same host as host_props(i), built at evaluation
-- time.  Keep the two in step.
local loop_body = [=[
local function ipv4_of(i)
  local v = i + 1
  return string.format("198.%d.%d.%d", 18 + (v >> 16), (v >> 8) & 255, v & 255)
end

local node_exporter = property {
  desc = "node exporter listens on 9100",
  ports = { 9100 },
  check = function(sys) return sys:stat("/usr/bin/prometheus-node-exporter") ~= nil end,
  apply = function(sys) sys:run { "apt-get", "install", "-y", "prometheus-node-exporter" } end,
}

local function parts(name, addr)
  local t = {}
  for k = 1, 6 do
    t[k] = file.has_content(("/etc/app/part%d.conf"):format(k), {
      ("# %s part %d"):format(name, k), "listen = " .. addr,
      ("workers = %d"):format(2 + k % 4), ("log = /var/log/app/part%d.log"):format(k),
    }, { mode = "0640" })
  end
  return t
end

for i = 1, N do
  local name = ("h%06d.example.com"):format(i)
  local addr = ipv4_of(i)
  host(name) {
    os.debian("bookworm", "amd64"),
    ipv4(addr),
    ipv6(("2001:db8::%x:%x"):format((i + 1) >> 16, (i + 1) & 0xffff)),
    alias("www-" .. name),
    hostname.set(name),
    apt.std_sources_list(),
    apt.update(),
    apt.installed { "openssh-server" },
    apt.installed { "curl", "ca-certificates" },
    apt.installed { "vim-nox" },
    apt.installed { "htop", "tmux" },
    apt.installed { "chrony" },
    apt.installed { "unattended-upgrades" },
    file.has_content("/etc/motd", name .. " is managed by prop\n"),
    parts(name, addr),
    file.contains_lines("/etc/ssh/sshd_config",
      { "PermitRootLogin prohibit-password", "PasswordAuthentication no" }),
    file.contains_lines("/etc/security/limits.conf", { "* soft nofile 65536" }),
    file.contains_lines("/etc/sysctl.conf", { "vm.swappiness = 10" }),
    file.directory("/srv/app", { mode = "0755", owner = "app", group = "app" }),
    file.directory("/var/log/app"),
    file.symlink("/etc/app/current.conf", "/etc/app/part1.conf"),
    file.absent("/etc/cron.daily/obsolete"),
    file.mode("/etc/ssh/ssh_host_ed25519_key", "0600"),
    group.exists("app", { gid = 1500 }),
    user.account("app", { uid = 1500, gid = 1500, shell = "/bin/bash",
                          home = "/srv/app", groups = { "adm" } }),
    user.account("deploy", { uid = 1501, shell = "/bin/sh" }),
    user.account("backup" .. i % 7, { uid = 1502 }),
    cron.job("backup", "0 3 * * *", { "/usr/local/bin/backup", "--quiet" }, { user = "root" }),
    cron.job("rotate", ("%d * * * *"):format(i % 60),
             { "/usr/sbin/logrotate", "/etc/logrotate.conf" }),
    service.running "ssh",
    service.running "cron",
    service.enabled "chrony",
    apt.installed { "nginx" }
      :requires(file.has_content("/etc/nginx/sites-enabled/default",
                                 { "server {", "  server_name " .. name .. ";", "}" }))
      :on_change(service.restarted "nginx"),
    apt.installed { "foo" }
      :requires(file.contains_lines("/etc/foo", { "secure=1" }))
      :on_change(service.restarted "foo"),
    cmd.run({ "/usr/local/bin/app-migrate" }, { creates = "/srv/app/.migrated" })
      :fallback(cmd.run { "/usr/local/bin/app-rollback" }),
    pick_os(apt.installed { "ntpsec" }, pkg.installed { "ntpsec" }),
    packages.upgraded(),
    revert(apt.installed { "telnet", "rsh-client" }),
    revert(file.contains_lines("/etc/hosts.deny", { "ALL: 198.51.100.0/24" })),
    revert(revertable(service.running "rpcbind", service.stopped "rpcbind")),
    i % 2 == 0 and apache.installed() or tor.bridge(),
    node_exporter,
  }
end
]=]

-- One host of n properties, for the comparison with Propellor: the same
-- rotation of recipes on both sides.  Each entry: prop's expression,
-- Propellor's expression, properties in it.
local function onehost_item(k)
  local r = k % 10
  if r == 0 or r == 4 then
    return string.format('file.has_content("/etc/bench/f%d.conf", { "value = %d" })', k, k),
      string.format('File.hasContent "/etc/bench/f%d.conf" ["value = %d"]', k, k), 1
  elseif r == 1 or r == 5 then
    return string.format('apt.installed { "pkg%d" }', k),
      string.format('Apt.installed ["pkg%d"]', k), 1
  elseif r == 2 or r == 6 then
    return string.format('file.contains_lines("/etc/bench/l%d", { "setting = %d" })', k, k),
      string.format('File.containsLine "/etc/bench/l%d" "setting = %d"', k, k), 1
  elseif r == 3 then
    return string.format('file.directory "/srv/bench/d%d"', k),
      string.format('File.dirExists "/srv/bench/d%d"', k), 1
  elseif r == 7 then
    return string.format('service.running "svc%d"', k),
      string.format('Service.running "svc%d"', k), 1
  elseif r == 8 then
    return string.format('apt.installed { "app%d" }:requires(file.contains_lines('
        .. '"/etc/app%d", { "secure = 1" })):on_change(service.restarted "app%d")', k, k, k),
      string.format('Apt.installed ["app%d"] `requires` File.containsLine "/etc/app%d" '
        .. '"secure = 1" `onChange` Service.restarted "app%d"', k, k, k), 3
  else
    return string.format('revert(revertable(apt.installed { "old%d" }, apt.removed { "old%d" }))',
        k, k),
      string.format('! (Apt.installed ["old%d"] <!> Apt.removed ["old%d"])', k, k), 2
  end
end

if mode == "literal" then
  -- Every host has the same number of properties; stream the hosts out.
  local _, c = host_props(1)
  io.write("-- properties: " .. c * n .. "\n")
  io.write("-- A generated benchmark site: " .. n .. " hosts, written out.\n")
  io.write([[
local function exporter_present(sys)
  return sys:stat("/usr/bin/prometheus-node-exporter") ~= nil
end
local function exporter_install(sys)
  sys:run { "apt-get", "install", "-y", "prometheus-node-exporter" }
end
]])
  for i = 1, n do
    local p = host_props(i)
    io.write("host ", q(name_of(i)), " {\n  ", table.concat(p, ",\n  "), ",\n}\n")
  end
elseif mode == "loop" then
  local _, c = host_props(1)
  emit("-- properties: " .. c * n .. "\n")
  emit("-- A generated benchmark site: " .. n .. " hosts built by a loop.\n")
  emit("local N = " .. n .. "\n")
  emit(loop_body)
elseif mode == "onehost" or mode == "propellor" then
  local items, total, k = {}, 1, 0
  while total < n do
    k = k + 1
    local lp, hp, c = onehost_item(k)
    items[#items + 1] = mode == "onehost" and lp or hp
    total = total + c
  end
  emit("-- properties: " .. total .. "\n")
  if mode == "onehost" then
    emit('host "bench.example.com" {\n  os.debian("bookworm", "amd64"),\n  ')
    emit(table.concat(items, ",\n  "))
    emit(",\n}\n")
  else
    emit([[
-- One host of generated properties, combined as a Propellor user would.
import Propellor
import qualified Propellor.Property.Apt as Apt
import qualified Propellor.Property.File as File
import qualified Propellor.Property.Service as Service

main :: IO ()
main = defaultMain hosts

hosts :: [Host]
hosts = [bench]

bench :: Host
bench = host "bench.example.com" $ props
  & osDebian (Stable "bookworm") X86_64
]])
    for _, it in ipairs(items) do
      if it:sub(1, 1) == "!" then
        emit("  " .. it .. "\n")
      else
        emit("  & " .. it .. "\n")
      end
    end
  end
else
  io.stderr:write("gen.lua: unknown mode " .. mode .. "\n")
  os.exit(64)
end
io.write(table.concat(out))
