-- W101 is for the same property twice in one list: inside one role, and
-- a role or a list given twice.  The same property from two lists (two
-- roles, a role and the host's list) agrees and is not warned about.
local function web(h)
  return {
    apt.installed { "nginx" },
    apt.installed { "nginx" },
--! W101 7 warning
  }
end

local function ntp(h) return apt.installed { "chrony" } end
--! W101 12 warning

local base = { file.directory "/srv" }
--! W101 15 warning

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  web,
  ntp, ntp,
  base, base,
  apt.installed { "nginx" },
  file.directory "/srv",
}
--! note 6
--! note 18
--! total 3
