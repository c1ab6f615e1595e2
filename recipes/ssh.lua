-- prop.ssh: SSH host keys as facts of the site.
--
-- A host's public key is info (ssh.host_key), so that every other host
-- can trust it without trust-on-first-use (ssh.known_hosts); its private
-- half is a secret in the site's store (ssh.host_keys installs both).

local core = require "prop.core"
local args = require "prop.args"
local R = require "prop.runtime"
local file = require "prop.file"
local service = require "prop.service"

local ssh = {}

local fmt, concat = string.format, table.concat

local impl = { known_hosts = {} }

-- The key types, with the algorithm name their public keys start with.
local algorithms = {
   ed25519 = "ssh-ed25519",
   rsa = "ssh-rsa",
   ecdsa = "ecdsa-sha2-nistp256",
   dsa = "ssh-dss",
}
local types = { "ed25519", "rsa", "ecdsa", "dsa" }

local function check_type(v, what)
   if type(v) == "string" and algorithms[v] then return nil, v end
   return fmt("%s must be one of ed25519, rsa, ecdsa, dsa, got %s%s", what, args.got(v),
              type(v) == "string" and args.did_you_mean(v, types) or "")
end

-- "ALGORITHM BASE64 [comment]" for a key of type t: the first two words.
local function check_public(t, v, what)
   if type(v) ~= "string" then return fmt("%s must be a public key line, got %s", what, args.got(v)) end
   local alg, data = v:match("^%s*(%S+)%s+([A-Za-z0-9+/]+=*)")
   if not alg then
      return fmt('%s %s is not a public key such as "ssh-ed25519 AAAAC3Nza..."', what, args.show(v))
   end
   local want = algorithms[t]
   if want and alg ~= want and not (t == "ecdsa" and alg:find("^ecdsa%-sha2%-")) then
      return fmt("%s is a %s key, not %s", what, alg, t)
   end
   return nil, alg .. " " .. data
end

local function info_key(t) return "ssh.hostkey." .. t end

--[[ ssh.host_key(type, public)
  Info: ssh.hostkey.TYPE = the public key ("ALGORITHM BASE64", the
  comment dropped).  type: ed25519, rsa, ecdsa or dsa.  Other hosts'
  ssh.known_hosts list it under the host's names and addresses.
  Example:
    ssh.host_key("ed25519", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI...")
]]
function ssh.host_key(t, public, opts)
   local desc = "ssh host key " .. (type(t) == "string" and t or "?")
   local terr, tt = check_type(t, "type")
   local perr, p
   if not terr then perr, p = check_public(tt, public, "public") end
   local msg = args.join("ssh.host_key", terr, perr, (args.options(opts, {}, "ssh.host_key")))
   if msg then return core.invalid(desc, msg) end
   return core.leaf(desc, nil, nil, nil, nil, {
      info = { info_key(tt), p }, info_only = true,
      norevert = "ssh.host_key is information about the host; it has nothing to revert",
   })
end

--[[ ssh.host_keys { TYPE = public, ... }
  DebianLike.  For each type: the info of ssh.host_key, the public key in
  /etc/ssh/ssh_host_TYPE_key.pub (0644) and the private key, from the
  secret ssh_host_TYPE_key of the site's store (set for this host with
  prop secret set SITE ssh_host_TYPE_key --host HOST < the key file), in
  /etc/ssh/ssh_host_TYPE_key (0600); ssh is restarted when one changed.
  Claims: both files of each type, package openssh-server.
  Example:
    ssh.host_keys { ed25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI..." }
]]
function ssh.host_keys(keys)
   local desc = "ssh host keys"
   if type(keys) ~= "table" or next(keys) == nil then
      return core.invalid(desc, "ssh.host_keys: give the public keys by type, such as "
                                .. '{ ed25519 = "ssh-ed25519 AAAA..." }, got ' .. args.got(keys))
   end
   local ts = {}
   for t in pairs(keys) do
      local err = check_type(t, "key type")
      if err then return core.invalid(desc, "ssh.host_keys: " .. err) end
      ts[#ts + 1] = t
   end
   table.sort(ts)
   local parts = {}
   for _, t in ipairs(ts) do
      local err, p = check_public(t, keys[t], fmt("the %s key", t))
      if err then return core.invalid(desc, "ssh.host_keys: " .. err) end
      local base = "/etc/ssh/ssh_host_" .. t .. "_key"
      parts[#parts + 1] = ssh.host_key(t, p)
      parts[#parts + 1] = file.has_content(base, core.secret("ssh_host_" .. t .. "_key"),
                                           { mode = "0600", owner = "root", group = "root" })
      parts[#parts + 1] = file.has_content(base .. ".pub", p .. "\n", { mode = "0644" })
   end
   local restart = service.restarted "ssh"
   return core.props(parts):on_change(restart):describe(desc .. " " .. concat(ts, " "))
end

-- ---------------------------------------------------------------------
-- known_hosts.

-- The lines of a known_hosts file for every host of the site that
-- declares a key: its name, aliases and addresses (as [name]:port when
-- it is reached on another port than 22), then the key.
local function known_hosts_text()
   local lines = {}
   for _, h in ipairs(core.hosts()) do
      local names, seen = {}, {}
      local port = h:info("connect.port")[1]
      local function add(n)
         if port and port ~= "22" then n = "[" .. n .. "]:" .. port end
         if not seen[n] then seen[n], names[#names + 1] = true, n end
      end
      add(h.name)
      for _, a in ipairs(h:info "connect.address") do add(a) end
      for _, a in ipairs(h:info "alias") do add(a) end
      for _, a in ipairs(h:info "ipv4") do add(a) end
      for _, a in ipairs(h:info "ipv6") do add(a) end
      for _, t in ipairs(types) do
         for _, key in ipairs(h:info(info_key(t))) do
            lines[#lines + 1] = concat(names, ",") .. " " .. key
         end
      end
   end
   return concat(lines, "\n") .. (#lines > 0 and "\n" or "")
end

function impl.known_hosts.ensure(sys, a)
   local changed = false
   local dir = a.path:match("^(.*)/[^/]*$")
   local st = sys:stat(dir)
   if st == nil then
      sys:mkdir(dir, { mode = tonumber("0700", 8), owner = a.user, group = a.group })
      changed = true
   end
   if R.ensure_content(sys, "ssh.known_hosts", a.path, known_hosts_text(),
                       { mode = "0644", owner = a.user, group = a.group }) then
      changed = true
   end
   return changed and "changed" or "ok"
end

--[[ ssh.known_hosts(user [, { path=, group= }])
  UnixLike.  The known_hosts file of user lists every host of the site
  that declares its key (ssh.host_key, ssh.host_keys) under its name, its
  aliases, its addresses and its connect.ssh address ([name]:port when
  its port is not 22): the fleet trusts itself without trust-on-first-use.
  The file is written when the site changes; its directory is made 0700
  when missing.  path defaults to /root/.ssh/known_hosts for root and
  /home/USER/.ssh/known_hosts for another user; group defaults to user.
  Claims: file.generated path.
  Example:
    ssh.known_hosts "root"
]]
function ssh.known_hosts(user, opts)
   local desc = "ssh known hosts of " .. (type(user) == "string" and user or "?")
   local uerr = args.matching(user, "user", "[a-z_][a-z0-9_-]*%$?", 'a user name such as "root"')
   local oerr, o = args.options(opts, { path = args.abs_path,
      group = function(v, what) return args.matching(v, what, "[a-z_][a-z0-9_-]*", 'a group such as "adm"') end,
   }, "ssh.known_hosts")
   local msg = args.join("ssh.known_hosts", uerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local path = o.path or (user == "root" and "/root/.ssh/known_hosts"
                           or "/home/" .. user .. "/.ssh/known_hosts")
   return core.leaf(desc, nil, impl.known_hosts,
                    { user = user, group = o.group or user, path = path },
                    { "file.generated", path, "ssh.known_hosts" }, {
      norevert = "ssh.known_hosts has no revert action: the old file is not known",
   })
end

return args.strict_module(ssh, "ssh")
