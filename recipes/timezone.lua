-- prop.timezone: the system's time zone.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local timezone = {}

local fmt = string.format

local ZONEINFO = "/usr/share/zoneinfo/"

local impl = { debian = {}, freebsd = {} }

-- The zone's file in the target; a zone the target does not have is a
-- failure that says so (before anything is written).
local function zone_file(sys, what, zone)
   local path = ZONEINFO .. zone
   local real, st = R.follow(sys, path)
   if st == nil then
      R.fail("%s: unknown time zone %s: the target has no %s (a misspelt zone, or tzdata "
             .. "is not installed)", what, zone, path)
   end
   if st.type ~= "file" then
      R.fail("%s: %s is not a time zone: %s is a %s", what, zone, real,
             st.type == "directory" and "directory (a region: name a city in it)" or st.type)
   end
   return path
end

function impl.debian.ensure(sys, a)
   local target = zone_file(sys, "timezone.set", a.zone)
   local changed = R.ensure_content(sys, "timezone.set", "/etc/timezone", a.zone .. "\n", {})
   local st = sys:stat("/etc/localtime")
   if not (st and st.type == "link" and st.target == target) then
      if st and st.type == "directory" then
         R.fail("timezone.set: /etc/localtime is a directory, not a link")
      end
      -- A copy of a zone file (or a link to another zone) is replaced.
      sys:symlink(target, "/etc/localtime")
      changed = true
   end
   return changed and "changed" or "ok"
end

function impl.freebsd.ensure(sys, a)
   local source = zone_file(sys, "timezone.set", a.zone)
   local content = sys:read(source)
   local changed = R.ensure_content(sys, "timezone.set", "/etc/localtime", content,
                                    { mode = "0444" })
   -- tzsetup(8) records the zone's name there, for freebsd-update and
   -- tzsetup -r.
   changed = R.ensure_content(sys, "timezone.set", "/var/db/zoneinfo", a.zone .. "\n", {})
      or changed
   return changed and "changed" or "ok"
end

-- A zone name: words of letters, digits, "_", "+" and "-" separated by
-- "/" ("Europe/Paris", "America/Argentina/Buenos_Aires", "Etc/GMT+3",
-- "UTC").
local function check_zone(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   for part in (v .. "/"):gmatch("([^/]*)/") do
      if not part:find("^[%w_+-]+$") or part:find("^[+-]") then
         return fmt('%s %s is not a time zone name: expected words of letters, digits, "_", '
                    .. '"+" and "-" separated by "/", such as "Europe/Paris" or "UTC"',
                    what, args.show(v))
      end
   end
   return nil, v
end

--[[ timezone.set(zone)
  DebianLike or FreeBSD, not revertable.
  Claims: on Debian, file.content /etc/timezone = "ZONE\n" and
  file.symlink /etc/localtime = /usr/share/zoneinfo/ZONE; on FreeBSD,
  file.generated /etc/localtime (a copy of the zone file, as tzsetup
  makes it) and file.content /var/db/zoneinfo = "ZONE\n".  Two zones on
  one host are P007.
  Run time: the zone must exist in the target (/usr/share/zoneinfo/ZONE,
  from tzdata on Debian): an unknown zone fails before anything is
  written.  Debian: writes /etc/timezone and points /etc/localtime at
  the zone (a copy or another link there is replaced).  FreeBSD: copies
  the zone file to /etc/localtime and records the name.  Nothing is
  restarted: running programs see the new zone when they start again.
  Example:
    timezone.set "Europe/Paris"
]]
function timezone.set(zone, opts)
   local desc = "timezone " .. (type(zone) == "string" and zone or "?")
   local err = check_zone(zone, "zone")
   local msg = args.join("timezone.set", err, (args.options(opts, {}, "timezone.set")))
   if msg then return core.invalid(desc, msg) end
   local a = { zone = zone }
   local norevert = "timezone.set has no revert action: the old zone is not known"
   local debian = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.debian, args = a,
                             claims = { claim.file_content("/etc/timezone", zone .. "\n"),
                                        claim.file_symlink("/etc/localtime", ZONEINFO .. zone) },
                             norevert = norevert }
   local freebsd = core.leaf{ desc = desc, targets = "FreeBSD", impl = impl.freebsd, args = a,
                              claims = { claim.file_generated("/etc/localtime", ZONEINFO .. zone),
                                         claim.file_content("/var/db/zoneinfo", zone .. "\n") },
                              norevert = norevert }
   return core.describe(core.pick_os(debian, freebsd), desc)
end

return args.strict_module(timezone, "timezone")
