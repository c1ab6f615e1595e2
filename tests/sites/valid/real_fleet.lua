-- A real fleet, in the manner of the configuration Propellor's author
-- runs (its joeyconfig.hs): a laptop, mail and web servers, a home
-- router, Tor relays, hosts that declare no OS, an address two machines
-- share on purpose, and hosts declared only for what the others know of
-- them.  Where prop has no recipe yet, the property is written by hand
-- with its claims, so that every file it edits is visible to the
-- pre-pass and to `prop claims`.  Containers are left out here.

local nop = function(sys) end

-- ---------------------------------------------------------------------
-- Hand-written properties, each claiming what it touches.

-- The line "Key value" of sshd_config, replacing the first line that sets
-- Key (sshd takes the first value it reads).
local function sshd_setting(key, value)
  local path, want = "/etc/ssh/sshd_config", key .. " " .. value
  return property {
    desc = "sshd " .. key .. " " .. value,
    targets = "DebianLike",
    claims = { lines = { [path] = want }, packages = { "openssh-server" } },
    check = function(sys)
      for l in (sys:read(path) or ""):gmatch("[^\n]+") do
        local k = l:match("^%s*(%S+)")
        if k and k:lower() == key:lower() then return l == want end
      end
      return false
    end,
    apply = function(sys)
      local out, done = {}, false
      for l in (sys:read(path) or ""):gmatch("[^\n]*") do
        local k = l:match("^%s*(%S+)")
        if not done and k and k:lower() == key:lower() then
          out[#out + 1], done = want, true
        elseif l ~= "" then
          out[#out + 1] = l
        end
      end
      if not done then out[#out + 1] = want end
      sys:write(path, table.concat(out, "\n") .. "\n")
      sys:run { "systemctl", "reload", "ssh" }
    end,
  }
end

local function unattended_upgrades()
  local conf = "/etc/apt/apt.conf.d/50prop-unattended-upgrades"
  local content = 'APT::Periodic::Update-Package-Lists "1";\nAPT::Periodic::Unattended-Upgrade "1";\n'
  return property {
    desc = "unattended upgrades", targets = "DebianLike",
    claims = { files = { conf }, packages = { "unattended-upgrades" } },
    check = function(sys) return sys:read(conf) == content end,
    apply = function(sys) sys:write(conf, content, { mode = "0644" }) end,
  }:requires(apt.installed "unattended-upgrades")
end

local function mailname(name)
  return file.has_content("/etc/mailname", name .. "\n")
end

local function locale_available(locale)
  local line = locale .. " UTF-8"
  return property {
    desc = "locale " .. locale .. " available", targets = "DebianLike",
    claims = { lines = { ["/etc/locale.gen"] = line }, packages = { "locales" } },
    check = function(sys)
      return sys:query({ "locale", "-a" }).stdout:lower():find(locale:lower():gsub("%-", ""), 1, true)
    end,
    apply = function(sys)
      local gen = sys:read("/etc/locale.gen") or ""
      if not gen:find("\n" .. line .. "\n", 1, true) then
        sys:write("/etc/locale.gen", gen .. line .. "\n")
      end
      sys:run { "locale-gen" }
    end,
  }
end

local function sudo_for(user)
  local path = "/etc/sudoers.d/prop-" .. user
  return property {
    desc = "sudo for " .. user, targets = "DebianLike",
    claims = { files = { path }, packages = { "sudo" }, users = { user } },
    check = function(sys) return sys:read(path) == user .. " ALL=(ALL:ALL) ALL\n" end,
    apply = function(sys)
      sys:write(path, user .. " ALL=(ALL:ALL) ALL\n", { mode = "0440" })
      sys:run { "visudo", "-cf", path }
    end,
  }:requires(apt.installed "sudo")
end

local function persistent_journal()
  return property {
    desc = "journal kept on disk",
    claims = { files = { "/var/log/journal" } },
    check = function(sys) return sys:exists("/var/log/journal") end,
    apply = function(sys)
      sys:mkdir("/var/log/journal", { mode = "2755" })
      sys:run { "systemctl", "restart", "systemd-journald" }
    end,
  }
end

local function journald_max_use(size)
  local path = "/etc/systemd/journald.conf.d/prop-max-use.conf"
  local content = "[Journal]\nSystemMaxUse=" .. size .. "\n"
  return property {
    desc = "journal at most " .. size,
    claims = { files = { path } },
    check = function(sys) return sys:read(path) == content end,
    apply = function(sys)
      sys:write(path, content)
      sys:run { "systemctl", "restart", "systemd-journald" }
    end,
  }
end

local function grub_cmdline(arg)
  local path = "/etc/default/grub.d/prop-" .. arg:gsub("[^%w]", "_") .. ".cfg"
  local content = 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT ' .. arg .. '"\n'
  local function present(sys) return sys:read(path) == content end
  return revertable(
    property { desc = "kernel booted with " .. arg, targets = "DebianLike",
               claims = { files = { path } }, check = present,
               apply = function(sys) sys:write(path, content) sys:run { "update-grub" } end },
    property { desc = "kernel booted without " .. arg, targets = "DebianLike",
               claims = { files = { path } },
               check = function(sys) return not sys:exists(path) end,
               apply = function(sys) sys:remove(path) sys:run { "update-grub" } end })
end

local function service_installed_running(pkg)
  return props { apt.installed(pkg), service.running(pkg) }:describe(pkg .. " installed and running")
end

local function tor_hidden_service(name, port)
  local dir = "/var/lib/tor/" .. name
  return property {
    desc = "tor hidden service " .. name .. " on port " .. port,
    targets = "DebianLike",
    claims = { lines = { ["/etc/tor/torrc"] = { "HiddenServiceDir " .. dir,
                                                  "HiddenServicePort " .. port .. " 127.0.0.1:" .. port } },
               packages = { "tor" }, services = { "tor" } },
    check = function(sys) return sys:exists(dir .. "/hostname") end,
    apply = function(sys)
      local conf = sys:read("/etc/tor/torrc") or ""
      conf = conf .. "HiddenServiceDir " .. dir .. "\nHiddenServicePort " .. port .. " 127.0.0.1:" .. port .. "\n"
      sys:write("/etc/tor/torrc", conf)
      sys:run { "systemctl", "restart", "tor" }
    end,
  }
end

local function borg_backup(name, dirs, repo)
  local script = "/usr/local/sbin/borg-" .. name
  local body = { "#!/bin/sh", "set -e" }
  body[#body + 1] = "borg create " .. repo .. "::{now} " .. table.concat(dirs, " ")
  body[#body + 1] = "borg prune --keep-daily 7 --keep-weekly 4 --keep-monthly 3 " .. repo
  return props {
    apt.installed "borgbackup",
    property { desc = "borg backup script " .. name, claims = { files = { script } },
               check = function(sys) return sys:read(script) == table.concat(body, "\n") .. "\n" end,
               apply = function(sys) sys:write(script, table.concat(body, "\n") .. "\n", { mode = "0755" }) end },
    cron.job("borg-" .. name, "@daily", { script }),
  }:describe("borg backup of " .. table.concat(dirs, " "))
end

local function fail2ban()
  return service_installed_running "fail2ban"
end

local function lightdm_autologin(user)
  local path = "/etc/lightdm/lightdm.conf.d/prop-autologin.conf"
  return property {
    desc = "lightdm logs " .. user .. " in", targets = "DebianLike",
    claims = { files = { path }, packages = { "lightdm" }, users = { user } },
    check = function(sys) return sys:read(path) == "[Seat:*]\nautologin-user=" .. user .. "\n" end,
    apply = function(sys) sys:write(path, "[Seat:*]\nautologin-user=" .. user .. "\n") end,
  }
end

local function user_in_group(user, group)
  return property {
    desc = user .. " in group " .. group,
    claims = { users = { user }, groups = { group } },
    check = function(sys)
      return (" " .. sys:query({ "id", "-nG", user }).stdout .. " "):find(" " .. group .. " ", 1, true)
    end,
    apply = function(sys) sys:run { "adduser", user, group } end,
  }
end

local function ssh_host_key(kind, key)
  return property { desc = "ssh host key " .. kind, info = { ["ssh.hostkey." .. kind] = key } }
end

-- ---------------------------------------------------------------------
-- Roles.

local function standard_system(suite, arch, motd)
  return props {
    os.debian(suite, arch),
    mailname "kitenet.net",
    locale_available "en_US.UTF-8",
    file.has_content("/etc/motd", motd),
    apt.std_sources_list():on_change(apt.upgraded()),
    apt.installed { "etckeeper" },
    apt.installed { "ssh", "mosh" },
    user.account("joey", { shell = "/bin/bash", comment = "Joey" }),
    sudo_for "joey",
    apt.installed { "vim", "screen", "less" },
    cron.job("prop", "30 * * * *", { "prop", "run", "/srv/site/site.lua" }),
    apt.removed { "exim4", "exim4-base", "exim4-daemon-light" },
  }
end

local function hardened(suite, arch, motd)
  return standard_system(suite, arch, motd):before(sshd_setting("PasswordAuthentication", "no"))
end

local function dns_records(zone)
  return property {
    desc = "zone " .. zone, targets = "DebianLike",
    claims = { files = { "/etc/bind/db." .. zone }, packages = { "bind9" }, services = { "named" } },
    ports = { 53 },
    apply = nop,
  }
end

local function mail_server()
  return props {
    apt.installed { "postfix", "dovecot-imapd" },
    service.running "postfix", service.running "dovecot",
    property { desc = "postfix main.cf", targets = "DebianLike",
               claims = { files = { "/etc/postfix/main.cf" }, packages = { "postfix" } },
               ports = { 25, 587 }, apply = nop },
    property { desc = "dovecot listens", targets = "DebianLike",
               claims = { files = { "/etc/dovecot/local.conf" }, packages = { "dovecot-imapd" } },
               ports = { 993 }, apply = nop },
  }:describe "mail server"
end

local function tor_relay_host()
  return props {
    apt.installed { "ssh" },
    apt.installed { "tor" },
    tor_hidden_service("ssh", 22),
  }
end

-- ---------------------------------------------------------------------
-- Hosts.

-- A laptop that declares no OS: Debian, because its properties are.
host "darkstar.kitenet.net" {
  ipv6("2001:db8:1600:187::2", { shared = true }),
  hostname.set "darkstar.kitenet.net",
  mailname "kitenet.net",
  service_installed_running "swapspace",
  grub_cmdline "i915.enable_psr=1",
  revert(grub_cmdline "quiet"),
  user_in_group("joey", "dialout"),
}

-- The same machine's other name, declared for what it carries.
host "dragon.kitenet.net" {
  ipv6("2001:db8:1600:187::2", { shared = true }),
  alias "dragon-mail.kitenet.net",
}

host "oyster.kitenet.net" {
  hardened("buster", "amd64", { "", "Unreliable server. Anything here may be lost at any time!", "" }),
  ipv4 "192.0.2.89",
  unattended_upgrades(),
}

host "orca.kitenet.net" {
  hardened("unstable", "amd64", { "", "Main build box.", "" }),
  ipv4 "192.0.2.179",
  unattended_upgrades(),
  service_installed_running "ntp",
  persistent_journal(),
}

host "honeybee.kitenet.net" {
  hardened("testing", "armhf", { "", "Home router and arm build box.", "" }),
  apt.removed { "rsyslog" },
  persistent_journal(),
  apt.installed { "firmware-misc-nonfree" },
  service_installed_running "ntp",
  apt.installed { "mtr-tiny", "iftop", "screen" },
  ssh_host_key("ed25519", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHoneybeeHostKeyForTestsOnly"),
}

host "kite.kitenet.net" {
  standard_system("testing", "amd64", { "", "Welcome to kite!", "" }),
  ipv4 "192.0.2.95",
  ipv6 "2001:db8:3c03::95",
  alias "kitenet.net",
  alias "smtp.kitenet.net", alias "imap.kitenet.net", alias "git.kitenet.net",
  apt.installed { "linux-image-amd64" },
  service_installed_running "swapspace",
  unattended_upgrades(),
  persistent_journal(),
  journald_max_use "500MiB",
  sshd_setting("PasswordAuthentication", "yes"),
  fail2ban(),
  sshd_setting("GatewayPorts", "clientspecified"),
  service_installed_running "ntp",
  file.has_content("/etc/timezone", "US/Eastern\n"),
  borg_backup("root", { "/" }, "ssh://backup.example.net/./kite.borg"),
  mail_server(),
  file.owner("/srv/web", "joey", "joey"),
  apt.installed { "analog", "git-annex", "myrepos", "build-essential", "make", "zsh" },
  dns_records "kitenet.net",
  file.has_content("/etc/resolv.conf", { "nameserver 127.0.0.1", "domain kitenet.net",
                                         "search kitenet.net" }),
  apt.installed { "debug-me", "debug-me-server" },
  service.enabled "debug-me",
}

-- Tor relays that declare no OS: their properties make them Debian.
host "beaver.kitenet.net" { tor_relay_host() }
host "sow.kitenet.net" { tor_relay_host() }
host "mouse.kitenet.net" { ipv4 "192.0.2.96", tor_relay_host() }
host "peregrine.kitenet.net" {
  tor_relay_host(),
  apt.installed { "screen", "variety", "git-annex" },
  lightdm_autologin "desktop",
}

host "pell.branchable.com" {
  alias "branchable.com",
  ipv4 "192.0.2.55",
  ipv6 "2001:db8:3c03::55",
  alias "olduse.net", alias "www.olduse.net", alias "ikiwiki.info",
  os.debian("buster", "i386"),
  apt.installed { "linux-image-686-pae" },
  apt.std_sources_list():on_change(apt.upgraded()),
  unattended_upgrades(),
}

-- Systems prop does not manage, declared for what the others know of them.
host "usw-s002.rsync.net" {
  ssh_host_key("ed25519", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIRsyncNetHostKeyForTestsOnly"),
}
host "ns6.gandi.net" { ipv4 "192.0.2.40" }
host "animx" { ipv4 "192.0.2.49" }
