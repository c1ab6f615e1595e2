-- W105: a container that no host takes is never made nor run; its own
-- properties are still checked.  One that a host only reverts is not
-- warned about: the host removes it.
--! W105 5 warning
local forgotten = chroot.debootstrapped("/srv/chroot/forgotten", os.debian("bookworm", "amd64"), {
  apt.installed { "build-essential" },
})
local old = chroot.debootstrapped("/srv/chroot/old", os.debian("bookworm", "amd64"), {})
local dev = chroot.debootstrapped("/srv/chroot/dev", os.debian("bookworm", "amd64"), {})

host "box" {
  os.debian("bookworm", "amd64"),
  chroot.provisioned(dev),
  revert(chroot.provisioned(old)),
}
