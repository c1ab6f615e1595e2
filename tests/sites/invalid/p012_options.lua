-- P012: bad arguments to ssh.user_keypair, user.account's only_if_unset,
-- ssh.host_keys_regenerated, grub.setting, grub.cmdline_word(_absent) and
-- hostname.sane's mailname, service.reloaded, apt.unattended_upgrades,
-- borg's env= and keyfile=.
--! P012 29
--! P012 30
--! P012 31
--! P012 32
--! P012 33
--! P012 34
--! P012 35
--! P012 36
--! P012 37
--! P012 38
--! P012 39
--! P012 40
--! P012 41
--! P012 42
--! P012 43
--! P012 44
--! P012 45
--! P012 46
--! P012 47
--! P012 48
local PUB = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIFjBNLXiKat1uOEPxMGF/tSx6TFZ9HMoqQnHbRguY+a"
local RSA = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ"
host "options.example.com" {
  os.debian("bookworm", "amd64"),
  ssh.user_keypair("deploy", "ed25519", { private = "-----BEGIN OPENSSH", public = PUB }),
  ssh.user_keypair("deploy", "ed25519", { private = secret "k", public = RSA }),
  ssh.user_keypair("deploy", "ed2519", { private = secret "k", public = PUB }),
  ssh.user_keypair("Deploy", "ed25519", { private = secret "k", public = PUB }),
  ssh.user_keypair("deploy", "ed25519", { public = PUB }),
  user.account("alice", { only_if_unset = true }),
  user.account("bob", { password = secret "k", only_if_unset = "yes" }),
  ssh.host_keys_regenerated("now"),
  grub.setting("TIMEOUT", 3),
  grub.setting("GRUB_CMDLINE_LINUX", "quiet"),
  grub.setting("GRUB_TIMEOUT", "`reboot`"),
  grub.cmdline_word "quiet splash",
  grub.cmdline_word_absent "",
  hostname.sane { mailname = "domian" },
  service.reloaded "-nginx",
  apt.unattended_upgrades { origins = {} },
  apt.unattended_upgrades { origins = { 'origin=Debian";' } },
  apt.unattended_upgrades { mail = "root admin" },
  borg.backup("/etc", "/srv/b", { keyfile = "BORG_KEY 1234" }),
  borg.backup("/etc", "/srv/b", { env = { BORG_RSH = secret "k" } }),
}
