-- prop.hostname: the host's name.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"
local conf = require "prop.conf"

local hostname = {}

local impl = { set = {}, sane = {}, mailname = {}, search = {}, nosearch = {} }

local fmt = string.format

-- /etc/hosts with the 127.0.1.1 line naming the host (Debian's
-- convention for a host without a fixed address): the first such line is
-- replaced, others are dropped, none means one is added after the
-- 127.0.0.1 lines.
local function hosts_content(old, line)
   local lines = R.split_lines(old)
   local out, done, after = {}, false, nil
   for _, l in ipairs(lines) do
      if l:find("^%s*127%.0%.1%.1%s") or l == "127.0.1.1" then
         if not done then
            out[#out + 1] = line
            done = true
         end
      else
         out[#out + 1] = l
         if l:find("^%s*127%.0%.0%.1%s") then after = #out end
      end
   end
   if not done then table.insert(out, (after or #out) + 1, line) end
   return table.concat(out, "\n") .. "\n"
end

-- The line naming the host in /etc/hosts.
local function hosts_line(name, short)
   return name ~= short and fmt("127.0.1.1\t%s %s", name, short) or fmt("127.0.1.1\t%s", name)
end

-- /etc/hostname, the 127.0.1.1 line of /etc/hosts, rc.conf on FreeBSD
-- and the running name: a = { name =, short = }.
local function ensure_name(sys, a)
   local changed = R.ensure_content(sys, "hostname.set", "/etc/hostname", a.short .. "\n", {})
   local line = hosts_line(a.name, a.short)
   local old = sys:read("/etc/hosts")
   local new = hosts_content(old, line)
   if new ~= old then
      sys:write("/etc/hosts", new, old == nil and { mode = tonumber("0644", 8) } or nil)
      changed = true
   end
   if R.is_freebsd(sys) then
      -- rc.conf names the host at boot on FreeBSD.
      local r = R.query(sys, "hostname.set", { "sysrc", "-n", "hostname" })
      if r.code ~= 0 or r.stdout:match("%S+") ~= a.name then
         R.run(sys, "hostname.set", { "sysrc", "hostname=" .. a.name })
         changed = true
      end
   end
   -- A directory tree or a chroot has no running name of its own (a
   -- chroot shares this machine's UTS namespace): hostname(1) there would
   -- rename the machine running prop.
   if R.is_dir_tree(sys) or sys.container == "chroot" then
      return changed and "changed" or "ok"
   end
   local want = R.is_freebsd(sys) and a.name or a.short
   local r = R.query(sys, "hostname.set", { "hostname" })
   if r.code ~= 0 then R.command_failed("hostname.set", { "hostname" }, r) end
   if r.stdout:match("%S+") ~= want then
      R.run(sys, "hostname.set", { "hostname", want })
      sys:note(fmt("running host name %s -> %s", r.stdout:match("%S+") or "", want))
      changed = true
   end
   return changed and "changed" or "ok"
end

function impl.set.ensure(sys, a)
   return ensure_name(sys, a)
end

function impl.mailname.ensure(sys, a)
   local changed = R.ensure_content(sys, "hostname.mailname", "/etc/mailname", a.name .. "\n", {})
   return changed and "changed" or "ok"
end

-- RFC 1123: dot-separated labels of letters, digits and "-", 1 to 63
-- characters each, not starting or ending with "-"; 253 in all.
local function check_hostname(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if #v > 253 then return fmt("%s is longer than 253 characters", what) end
   for label in (v .. "."):gmatch("([^.]*)%.") do
      if label == "" or #label > 63 or not label:find("^[%w-]+$")
         or label:find("^%-") or label:find("%-$") then
         return fmt('%s %s is not a valid host name: expected labels of letters, digits '
                    .. 'and "-" separated by dots, such as "web1.example.com"', what, args.show(v))
      end
   end
   return nil, v
end

--[[ hostname.set(name)
  UnixLike, not revertable.
  Claims: hostname = name (two different names on one host are P013),
  file.content /etc/hostname = the first label of name and a newline, as
  Debian expects, and file.line /etc/hosts = "127.0.1.1<TAB>NAME SHORT"
  (the full name goes to /etc/hosts).
  Run time: writes /etc/hostname when it differs; makes /etc/hosts have
  one "127.0.1.1<TAB>NAME SHORT" line (replacing other 127.0.1.1 lines,
  keeping the rest); runs hostname SHORT when the running name differs
  (not on a connect.dir tree nor in a chroot, whose running name is the
  machine's).
  FreeBSD: also hostname=NAME in rc.conf (sysrc), and the full name runs.
  Example:
    hostname.set "web1.example.com"
]]
function hostname.set(name, opts)
   local desc = "hostname " .. (type(name) == "string" and name or "?")
   local err = check_hostname(name, "hostname")
   local msg = args.join("hostname.set", err, (args.options(opts, {}, "hostname.set")))
   if msg then return core.invalid(desc, msg) end
   local short = name:match("^[^.]+")
   return core.leaf{ desc = desc, impl = impl.set, args = { name = name, short = short },
                     claims = { claim.hostname("hostname", name),
                                claim.file_content("/etc/hostname", short .. "\n"),
                                claim.file_line("/etc/hosts", hosts_line(name, short)) },
                     norevert = "hostname.set has no revert action: the old name is not known" }
end

-- The host's own name, as the site declares it: a container's is the
-- last part of its full name ("box/web" -> "web").
function impl.sane.ensure(sys, o)
   local name = (sys.host or ""):match("([^/]*)$")
   local err = check_hostname(name, "the host's name")
   if err then R.fail("hostname.sane: %s", err) end
   local a = { name = name, short = name:match("^[^.]+") }
   local mail = name
   if o.mailname == "domain" then
      mail = name:match("^[^.]+%.(.+)$")
      if mail == nil then
         R.fail('hostname.sane: mailname = "domain" but the host\'s name %s has no domain part',
                name)
      end
   end
   local changed = ensure_name(sys, a) == "changed"
   if not R.is_freebsd(sys) and o.mailname ~= false then
      changed = impl.mailname.ensure(sys, { name = mail }) == "changed" or changed
   end
   return changed and "changed" or "ok"
end

-- What the claims of hostname.sane say the files hold: the name is only
-- known once the host runs.
local own_name = "the host's own name (hostname.sane)"

--[[ hostname.sane([{ mailname = "fqdn" | "domain" | false }])
  UnixLike, not revertable.
  The host's name from the site (host "web1.example.com" { ... }; a
  container's own name) set everywhere it is written, as hostname.set
  does, and as the mail name: /etc/mailname holds the full name
  (mailname = "fqdn", the default), its domain part (mailname = "domain":
  "example.com" for "mail.example.com"; a name without a dot then fails),
  or is left alone (mailname = false; no claim on it).
  Claims: file.generated /etc/hostname and /etc/mailname, and the
  127.0.1.1 setting of /etc/hosts: hostname.set or hostname.mailname
  beside it on one host is P007 (use one or the other).
  Run time: as hostname.set with the host's name (/etc/hostname,
  /etc/hosts, rc.conf on FreeBSD, the running name except on a
  connect.dir tree or in a chroot), and /etc/mailname (not on FreeBSD).
  A host's name that is not a valid host name (a site name such as
  "localhost/tree" is fine: its last part is used) fails.
  Example:
    host "mail.example.com" { os.debian("bookworm", "amd64"), hostname.sane() }
    host "mx1.example.com" { os.debian("bookworm", "amd64"), hostname.sane { mailname = "domain" } }
]]
function hostname.sane(opts)
   local oerr, o = args.options(opts, {
      mailname = function(v, what)
         if v == false or v == "fqdn" or v == "domain" then return nil, v end
         return fmt('%s must be "fqdn", "domain" or false, got %s', what, args.got(v))
      end,
   }, "hostname.sane")
   local msg = args.join("hostname.sane", oerr)
   if msg then return core.invalid("hostname sane", msg) end
   local claims = { claim.file_generated("/etc/hostname", own_name),
                    claim.file_setting("/etc/hosts", "127.0.1.1=" .. own_name) }
   if o.mailname ~= false then
      claims[#claims + 1] = claim.file_generated("/etc/mailname", o.mailname == "domain"
                                                 and "the domain of the host's own name (hostname.sane)"
                                                 or own_name)
   end
   return core.leaf{ desc = "hostname sane", impl = impl.sane,
                     args = { mailname = o.mailname == nil and "fqdn" or o.mailname },
                     claims = claims,
                     norevert = "hostname.sane has no revert action: the old name is not known" }
end

--[[ hostname.mailname(name)
  DebianLike, not revertable.
  Claims: file.content /etc/mailname = "NAME\n" (two names are P007).
  Run time: writes /etc/mailname when it differs: the name that mail
  programs (exim4, postfix) put in addresses without a domain.
  Example:
    hostname.mailname "example.com"
]]
function hostname.mailname(name, opts)
   local desc = "mailname " .. (type(name) == "string" and name or "?")
   local err = check_hostname(name, "name")
   local msg = args.join("hostname.mailname", err,
                         (args.options(opts, {}, "hostname.mailname")))
   if msg then return core.invalid(desc, msg) end
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl.mailname,
                     args = { name = name },
                     claims = { claim.file_content("/etc/mailname", name .. "\n") },
                     norevert = "hostname.mailname has no revert action: the old name is not known" }
end

local RESOLV = "/etc/resolv.conf"

-- An /etc/resolv.conf that a resolver manager writes: a link into /run
-- (systemd-resolved's stub file, resolvconf's).  Editing it would be
-- undone when that manager writes it again.
local function resolv_managed(sys)
   local st = sys:stat(RESOLV)
   if st == nil or st.type ~= "link" then return nil end
   local target = st.target
   local t = "/" .. target
   if t:find("/run/") or t:find("/resolvconf/") or t:find("/systemd/resolve/") then
      return target
   end
   return nil
end

function impl.search.ensure(sys, a)
   local what = "hostname.search_domain " .. a.domain
   local managed = resolv_managed(sys)
   if managed then
      R.fail("%s: %s is a link to %s, which systemd-resolved or resolvconf writes: an edit would "
             .. "be undone; set the search domain in that program's configuration instead", what,
             RESOLV, managed)
   end
   local dropped = 0
   local changed = conf.ensure_edit(sys, what, RESOLV, function(old)
      local new = conf.set_key(old, "search", a.domain, { sep = " " })
      -- "domain" and "search" exclude each other: the last one wins.
      local n1, n2
      new, n1 = new:gsub("\n[ \t]*domain[ \t][^\n]*", "")
      new, n2 = new:gsub("^[ \t]*domain[ \t][^\n]*\n", "")
      dropped = n1 + n2
      return new
   end)
   if changed and dropped > 0 then sys:note("the domain line goes: the search line replaces it") end
   return changed and "changed" or "ok"
end

function impl.nosearch.ensure(sys, a)
   if resolv_managed(sys) then return "ok" end
   local changed = conf.ensure_edit(sys, "hostname.search_domain (revert)", RESOLV, function(old)
      if old == nil then return "" end
      return conf.unset_key(old, "search", a.domain, { sep = " " })
   end)
   return changed and "changed" or "ok"
end

--[[ hostname.search_domain(domain)
  UnixLike, revertable: its revert removes the line "search DOMAIN".
  The domain the resolver tries for names without a dot (resolv.conf's
  search list, made of this domain alone).
  Claims: file.setting /etc/resolv.conf = "search=DOMAIN" (two domains on
  a host is P007) and file.noline "domain DOMAIN" (a whole resolv.conf
  that holds "search DOMAIN" and no domain line agrees with it).  The
  revert claims file.noline of the search line.
  Run time: the first "search" line of /etc/resolv.conf becomes
  "search DOMAIN" where it stands (appended when there is none; the file
  made when missing); "domain" lines go, since the last of "domain" and
  "search" wins.  An /etc/resolv.conf that is a link into /run (written
  by systemd-resolved or resolvconf) fails, left alone.
  Example:
    hostname.search_domain "example.com"
]]
function hostname.search_domain(domain, opts)
   local desc = "search domain " .. (type(domain) == "string" and domain or "?")
   local err = check_hostname(domain, "domain")
   local msg = args.join("hostname.search_domain", err,
                         (args.options(opts, {}, "hostname.search_domain")))
   if msg then return core.invalid(desc, msg) end
   local a = { domain = domain }
   -- The "domain" line naming it too goes at run time: fixed content that
   -- keeps one would be rewritten at every run (P007).
   local set = core.leaf{ desc = desc, impl = impl.search, args = a,
                          claims = { claim.file_setting(RESOLV, conf.claim("search", domain)),
                                     claim.file_noline(RESOLV, "domain " .. domain) } }
   local unset = core.leaf{ desc = "no search domain " .. domain, impl = impl.nosearch, args = a,
                            claims = { claim.file_noline(RESOLV, "search " .. domain) } }
   return core.pair(set, unset)
end

return args.strict_module(hostname, "hostname")
