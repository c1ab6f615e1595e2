-- The example host of Propellor's config-simple.hs, written for prop.
-- What Propellor's library has and prop's recipes do not yet
-- (unattended upgrades, "root has some password", running prop itself
-- from cron) is written by hand, with claims, so that the pre-pass and
-- `prop claims` see it as they see a recipe.

local function unattended_upgrades()
  local conf = "/etc/apt/apt.conf.d/50prop-unattended-upgrades"
  local content = 'APT::Periodic::Update-Package-Lists "1";\n'
    .. 'APT::Periodic::Unattended-Upgrade "1";\n'
  return property {
    desc = "unattended upgrades enabled",
    targets = "DebianLike",
    claims = { files = { conf }, packages = { "unattended-upgrades" } },
    check = function(sys) return sys:read(conf) == content end,
    apply = function(sys) sys:write(conf, content, { mode = "0644" }) end,
  }:requires(apt.installed "unattended-upgrades")
end

-- Propellor's User.hasSomePassword: the account is not locked without a
-- password.  It only looks: setting one needs a secret.
local function has_some_password(user)
  return property {
    desc = user .. " has some password",
    claims = { users = { user } },
    check = function(sys)
      local r = sys:query({ "passwd", "-S", user })
      return r.code == 0 and r.stdout:match("^%S+%s+(%S+)") == "P"
    end,
    apply = function(sys)
      error(user .. " has no password: set one with passwd " .. user, 0)
    end,
  }
end

host "mybox.example.com" {
  os.debian("unstable", "amd64"),
  apt.std_sources_list(),
  unattended_upgrades(),
  apt.installed { "etckeeper" },
  apt.installed { "ssh" },
  has_some_password "root",
  file.directory "/var/www",
  cron.job("prop", "30 * * * *", { "prop", "run", "/srv/site/site.lua", "mybox.example.com" }),
}
