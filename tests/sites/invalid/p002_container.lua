-- P002 inside a container: a container's properties are checked against
-- its own OS (here Debian, on a Debian host), each reported at its own
-- line in the container's list, even when no host takes the container;
-- and a chroot is Debian's, so a FreeBSD host cannot take one.
--! P002 12
--! P002 13
--! P002 16
--! W105 15 warning
--! P002 27
local tools = chroot.debootstrapped("/srv/chroot/tools", os.debian("bookworm", "amd64"), {
  apt.installed { "build-essential" },
  pkg.installed { "gmake" },
  pkg.installed "tmux",
})
local lost = chroot.debootstrapped("/srv/chroot/lost", os.debian("bookworm", "amd64"), {
  pkg.installed "tmux",
})
local fine = chroot.debootstrapped("/srv/chroot/fine", os.debian("bookworm", "amd64"), {
  apt.installed { "build-essential" },
})
host "box" {
  os.debian("bookworm", "amd64"),
  chroot.provisioned(tools),
}
host "bsd" {
  os.freebsd("14.1-RELEASE", "amd64"),
  chroot.provisioned(fine),
}
