-- A real fleet, translated: the configuration Propellor's author runs
-- (his joeyconfig.hs, which ships in Propellor's source), host for host,
-- in prop.  A laptop, a build box with containers, a home router, a
-- multi-user server that carries mail, web, git, DNS and backups, Tor
-- relays, a hosting server, and hosts declared only for what the others
-- know of them.  Addresses are documentation addresses and keys were made
-- for this example.
--
-- Every everyday piece is a shipped recipe; hand-written properties are
-- kept for what is this site's own (the "Site-specific" section): its mail
-- server's IMAP side, its git server, its build containers.  What prop
-- does not do is left out and said where it would be: disk images and
-- partitioning (Propellor's DiskImage), board support (Machine).
--
--   prop lint examples/fleet.lua
--   prop claims examples/fleet.lua /etc/postfix/main.cf
--   prop show examples/fleet.lua kite.kitenet.net
--
-- The secrets (root's password, kite's ssh host keys, borg's passphrase)
-- are in examples/fleet.secrets, encrypted to a key made for this example
-- and thrown away: lint checks their names, nobody can read their values.

local site_repo = "https://git.kitenet.net/site.git"

-- ---------------------------------------------------------------------
-- Site-specific: what no recipe library would ship.

-- The IMAP side of kite's mail: dovecot with this site's settings.
local function imap_server()
  local conf = "/etc/dovecot/conf.d/99-kitenet.conf"
  return props {
    apt.installed { "dovecot-imapd" },
    property {
      desc = "dovecot listens on imaps only", targets = "DebianLike",
      claims = { files = { conf }, packages = { "dovecot-imapd" }, services = { "dovecot" } },
      ports = { 993 },
      check = function(sys) return sys:read(conf) == "protocols = imap\nssl = required\n" end,
      apply = function(sys)
        sys:write(conf, "protocols = imap\nssl = required\n", { mode = "0644" })
        sys:run { "doveconf", "-n" }
        sys:run { "systemctl", "reload", "dovecot" }
      end,
    },
  }:describe "imap server"
end

-- kite's git server: git-daemon over the repositories in /srv/git.
local function git_server()
  return props {
    apt.installed { "git-daemon-sysvinit" },
    conffile.key_value("/etc/default/git-daemon", "GIT_DAEMON_ENABLE", "true", { sep = "=" }),
    conffile.key_value("/etc/default/git-daemon", "GIT_DAEMON_BASE_PATH", "/srv/git", { sep = "=" }),
    property {
      desc = "git daemon on port 9418", targets = "DebianLike",
      claims = { services = { "git-daemon" } }, ports = { 9418 },
      check = function(sys) return sys:query({ "service", "git-daemon", "status" }).code == 0 end,
      apply = function(sys) sys:run { "service", "git-daemon", "restart" } end,
    },
  }:describe "git server"
end

-- The build containers on orca and honeybee: a Debian tree that builds
-- the site's software from cron.
local function autobuilder(name, suite, arch, schedule)
  local builder = systemd.container(name, os.debian(suite, arch), {
    apt.installed { "build-essential", "git", "ghc", "cabal-install" },
    user.account("builder", { shell = "/bin/sh" }),
    git.cloned("https://git.kitenet.net/build.git", "/home/builder/build", { user = "builder" }),
    cron.job("autobuild", schedule, { "/home/builder/build/autobuild" }, { user = "builder" }),
  })
  return systemd.nspawned(builder)
end

-- ---------------------------------------------------------------------
-- Roles, from the shipped recipes.

-- Propellor's standardSystemUnhardened.
-- joeyconfig also gives kite a whole /etc/resolv.conf beside
-- Hostname.searchDomain's line in it: the two would rewrite each other at
-- every run.  prop's pre-pass says so (P007), so kite's role leaves the
-- search domain to its own file (own_resolv_conf).
local function standard_system_unhardened(suite, arch, motd, own_resolv_conf)
  local list = {
    os.debian(suite, arch),
    hostname.sane(),                            -- Hostname.sane and Hostname.mailname
    locale.available "en_US.UTF-8",
    file.has_content("/etc/motd", "\n" .. motd .. "\n\n"),
    apt.std_sources_list():on_change(apt.upgraded()),
    apt.cache_cleaned(),
    apt.installed { "etckeeper", "ssh", "mosh", "vim", "screen", "less", "git" },
    git.cloned("https://git.kitenet.net/joey/home.git", "/root/.home"),
    user.account("root", { password = secret "root_password" }),
    user.account("joey", { shell = "/bin/bash", comment = "Joey" }),
    sudo.enabled_for "joey",
    git.cloned("https://git.kitenet.net/joey/home.git", "/home/joey/.home", { user = "joey" }),
    pull.scheduled(site_repo, { every = "1h" }),  -- Cron.runPropellor
    apt.removed { "exim4", "exim4-base", "exim4-daemon-light" },  -- postfix or no MTA
  }
  if not own_resolv_conf then list[#list + 1] = hostname.search_domain "kitenet.net" end
  return props(list):describe "standard system"
end

-- Propellor's standardSystem: the same, and no password logins.
local function standard_system(suite, arch, motd)
  return standard_system_unhardened(suite, arch, motd):before(ssh.password_authentication(false))
end

-- Propellor's standardContainer.
local function standard_container(suite)
  return props {
    os.debian(suite, "amd64"),
    apt.removed { "exim4", "exim4-base", "exim4-daemon-light" },
    apt.std_sources_list():on_change(apt.upgraded()),
    apt.unattended_upgrades(),
    apt.cache_cleaned(),
  }:describe "standard container"
end

local function tor_ssh_relay()
  return props {
    apt.installed { "ssh" },
    tor.hidden_service("ssh", 22),
  }
end

-- A serial console on a hosting provider's virtual machine (Linode's
-- serialGrub): the kernel and GRUB on ttyS0.
local function serial_grub()
  local grub_file = "/etc/default/grub"
  return props {
    grub.cmdline_default "console=ttyS0,19200n8",
    conffile.key_value(grub_file, "GRUB_TERMINAL", "serial", { sep = "=" }),
    conffile.key_value(grub_file, "GRUB_SERIAL_COMMAND",
                       '"serial --speed=19200 --unit=0 --word=8 --parity=no --stop=1"', { sep = "=" }),
  }:describe "serial console"
end

local zone_ns = { "ns4.kitenet.net", "ns6.gandi.net" }
local function dns_primary(zone, records)
  local r = { { "@", "MX", 0, "kitenet.net." }, { "@", "TXT", "v=spf1 a a:kitenet.net ~all" } }
  for _, x in ipairs(records or {}) do r[#r + 1] = x end
  -- Dns.signedPrimary: signed by named (inline signing, its default
  -- policy); each run notes the DS to give the parent zone.
  return dns.primary(zone, { ns = zone_ns, records = r, dnssec = true })
end

-- ---------------------------------------------------------------------
-- Hosts.

host "darkstar.kitenet.net" {
  os.debian("unstable", "amd64"),
  ipv6("2001:db8:1600:187::2", { shared = true }),
  hostname.sane(),
  apt.service_installed_running "swapspace",
  -- Laptop.powertopAutoTuneOnBoot and Laptop.trimSSD
  apt.installed { "powertop" },
  systemd.unit("powertop.service", "[Unit]\nDescription=powertop tunings\n\n[Service]\nType=oneshot\n"
                                   .. "ExecStart=/usr/sbin/powertop --auto-tune\n\n[Install]\n"
                                   .. "WantedBy=multi-user.target\n"),
  systemd.enabled "powertop.service",
  systemd.enabled "fstrim.timer",
  grub.cmdline_default "i915.enable_psr=1",
  user.has_group("joey", "dialout"),
  postfix.satellite "kitenet.net",
  ssh.authorized_keys("joey", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPL9Zuh9bdXSs4IjbmnOydrspg05cCEP1Pm95V27KjEh"),
}

-- The same machine's other name, declared for what it carries.
host "dragon.kitenet.net" {
  ipv6("2001:db8:1600:187::2", { shared = true }),
}

host "oyster.kitenet.net" {
  standard_system("buster", "amd64", "Unreliable server. Anything here may be lost at any time!"),
  ipv4 "192.0.2.89",
  apt.unattended_upgrades(),
}

host "orca.kitenet.net" {
  standard_system("unstable", "amd64", "Main build box."),
  ipv4 "192.0.2.179",
  apt.unattended_upgrades(),
  postfix.satellite "kitenet.net",
  apt.service_installed_running "ntp",
  systemd.journald_persistent(),
  autobuilder("amd64-builder", "unstable", "amd64", "15 * * * *"),
  autobuilder("i386-builder", "unstable", "i386", "30 * * * *"),
  autobuilder("arm64-builder", "testing", "arm64", "1 * * * *"),
}

host "honeybee.kitenet.net" {
  standard_system("testing", "armhf", "Home router and arm build box."),
  apt.removed { "rsyslog" },
  systemd.journald_persistent(),
  apt.installed { "firmware-misc-nonfree", "mtr-tiny", "iftop", "screen" },
  apt.service_installed_running "ntp",       -- no hardware clock
  ssh.host_key("ed25519", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIjRcnUi4Or0uzx+PNEzgYc3nnYRD7zAfJh84TCEGH8M"),
  ssh.authorized_keys("joey", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPL9Zuh9bdXSs4IjbmnOydrspg05cCEP1Pm95V27KjEh"),
  postfix.satellite "kitenet.net",
  apt.service_installed_running "swapspace",
  autobuilder("armel-builder", "testing", "armel", "15 15 * * *"),
}

-- A multi-user server: mail, web, git, DNS, backups.  Accounts and their
-- passwords are the users' business, not the site's.
host "kite.kitenet.net" {
  standard_system_unhardened("testing", "amd64", "Welcome to kite!", true),
  ipv4 "192.0.2.95",
  ipv6 "2001:db8:3c03::95",
  alias "kitenet.net",
  ssh.host_keys {
    ed25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDz42P+xxDtrlAqRaOw6QlbMFDwwwPgJ4H1D9TYA6n1z",
    rsa = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDF9avfwc2IUfe/mYDUblvbNfSUd6heQZei7Pdy9S98kv1hRijtaajn++XSVshryCyzsBhiE/vv/aWaljlf3H5hrP8oefmSa87Z0FCcrLg2hC/7USm6TZp0Uzvmv8cs4I8RnvkVTiDhi9Ai5GJf9amFWKjxvtyoXQpLKK4NCdI2TOd2ErNKSuyhmw3vYcNoUXyBLZwzbO1sbmbWWDQkqCJDfGRpkk7R8Ol/OWERDRb6lMtAHy3xcjsAW+ood0HNyWl+3X6wPKRGVMIp9RTlrZYLAp/88EahJB+ZIciBkRhqYiv1TMzpAaRs7F4yXyjrJHI/K8dW38rYWhe0Y8zblZWz",
    ecdsa = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCc6L989l3bO1aqnyhmjb2WURotoqKhZdt3m4v8klrh7FQl92K6plo90vebjnkb3jo96PMqy/WdzVaSCjlwaSoY=",
  },
  network.preserve_static "eth0",
  apt.installed { "linux-image-amd64", "mlocate" },
  apt.service_installed_running "swapspace",
  serial_grub(),
  apt.unattended_upgrades(),
  systemd.journald_persistent(),
  systemd.journald_configured { SystemMaxUse = "500M" },
  ssh.password_authentication(true),
  fail2ban.installed(),                      -- since passwords are allowed
  ssh.sshd_config { GatewayPorts = "clientspecified" },  -- ssh -R through kite
  apt.service_installed_running "ntp",
  timezone.set "US/Eastern",

  borg.backup({ "/" }, "ssh://backup@usw-s002.rsync.net/./kite.borg", {
    exclude = { "/proc/*", "/sys/*", "/run/*", "/mnt/*", "/tmp/*", "/var/tmp/*",
                "/var/cache/*", "/var/lib/swapspace/*", "/var/lib/machines/*", "/srv/git" },
    keep = { daily = 7, weekly = 4, monthly = 3 },
    passphrase = secret "borg_passphrase",
  }):requires(ssh.known_hosts "root")
    :requires(ssh.authorized_keys("root", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBR90IWeycgHHF9XQuWePdwJsrM4CsJcff5F40jymLbE")),

  alias "smtp.kitenet.net", alias "imap.kitenet.net", alias "mail.kitenet.net",
  postfix.installed(),
  postfix.main_cf {
    myhostname = "kitenet.net",
    mydestination = "kitenet.net, localhost",
    inet_interfaces = "all",
    smtpd_tls_security_level = "may",
  },
  imap_server(),

  apache.installed(),
  file.owner("/srv/web", "joey", "joey"),
  apt.installed { "analog", "git-annex", "myrepos", "build-essential", "make", "rss2email",
                  "devscripts", "zsh" },

  alias "git.kitenet.net", alias "git.joeyh.name",
  git_server(),

  systemd.nspawned(systemd.container("ancient-kitenet", os.debian("buster", "amd64"), {
    standard_container "buster",
    git.cloned("https://git.kitenet.net/kitenet.net.git", "/var/www/html",
               { rev = "old-kitenet.net" }),
    apache.installed(),
    apache.listen_ports { 1994 },
    apache.site("ancient.kitenet.net", "<VirtualHost *:1994>\n\tServerName ancient.kitenet.net\n"
                                       .. "\tDocumentRoot /var/www/html\n</VirtualHost>\n"),
    apache.site_disabled "000-default",
  })),

  alias "ns4.kitenet.net",
  dns_primary("kitenet.net", { { "beaver-onion", "CNAME", "tl4xsvaxryjylgxs.onion." } }),
  dns_primary "joeyh.name",
  dns_primary "ikiwiki.info",
  dns.secondary("branchable.com", { "192.0.2.55" }),
  dns.secondary("animx.eu.org", { "192.0.2.49" }),
  file.has_content("/etc/resolv.conf", "nameserver 127.0.0.1\ndomain kitenet.net\nsearch kitenet.net\n"),

  alias "debug-me.joeyh.name",
  apt.installed { "debug-me", "debug-me-server" },
  systemd.enabled "debug-me",

  alias "letsencrypt.joeyh.name",
  letsencrypt.certbot({ "letsencrypt.joeyh.name" }, "id@joeyh.name", { webroot = "/var/www/html" }),
}

-- Tor relays that declare no OS: their properties make them Debian.
host "beaver.kitenet.net" { ssh.host_key("ed25519", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDmVzigFKhi5qJ63Fof3GgAaxSo0o1cAGxusOUJR1Mqr"), tor_ssh_relay() }
host "sow.kitenet.net" { ssh.host_key("ed25519", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMECJthyYcDbyoZ0Xeg7ZfJV8BZv9koXzUB7ctz6SrcM"), tor_ssh_relay() }
host "mouse.kitenet.net" { ipv4 "192.0.2.96", tor_ssh_relay() }
host "peregrine.kitenet.net" {
  tor_ssh_relay(),
  apt.installed { "screen", "variety", "git-annex", "lightdm" },
  conffile.ini_setting("/etc/lightdm/lightdm.conf", "Seat:*", "autologin-user", "desktop"),
}

host "pell.branchable.com" {
  alias "branchable.com",
  ipv4 "192.0.2.55",
  ipv6 "2001:db8:3c03::55",
  alias "olduse.net", alias "www.olduse.net", alias "joeyh.name", alias "www.joeyh.name",
  alias "ikiwiki.info", alias "www.ikiwiki.info",
  os.debian("buster", "i386"),
  apt.installed { "linux-image-686-pae" },
  apt.std_sources_list():on_change(apt.upgraded()),
  apt.unattended_upgrades(),
  serial_grub(),
}

-- Systems prop does not manage, declared for what the others know of them.
host "usw-s002.rsync.net" { ssh.host_key("ed25519", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICurWki2voe9RG/SZsjgC2VOTMDdGmjhzobJW2M/7ZMz") }
host "ns6.gandi.net" { ipv4 "192.0.2.40" }
host "animx" { ipv4 "192.0.2.49" }
