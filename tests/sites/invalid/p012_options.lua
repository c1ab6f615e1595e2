-- P012: bad arguments to ssh.user_keypair, user.account's only_if_unset,
-- ssh.host_keys_regenerated, grub.setting, grub.cmdline_word(_absent),
-- hostname.sane's mailname, borg's env= and keyfile=, and the rest of
-- the options fleets use.
--! P012 14
--! P012 15
--! P012 16
--! P012 17
--! P012 18
local PUB = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIFjBNLXiKat1uOEPxMGF/tSx6TFZ9HMoqQnHbRguY+a"
local RSA = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ"
host "options.example.com" {
  os.debian("bookworm", "amd64"),
  ssh.user_keypair("deploy", "ed25519", { private = "-----BEGIN OPENSSH", public = PUB }),
  ssh.user_keypair("deploy", "ed25519", { private = secret "k", public = RSA }),
  ssh.user_keypair("deploy", "ed2519", { private = secret "k", public = PUB }),
  ssh.user_keypair("Deploy", "ed25519", { private = secret "k", public = PUB }),
  ssh.user_keypair("deploy", "ed25519", { public = PUB }),
}
