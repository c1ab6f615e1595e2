-- P011: a container is named by its host and its name ("box/dev"), so
-- one host cannot take two containers of one name (here two chroots
-- whose paths end alike, and one named on purpose); and a container
-- lives on one host.
--! P011 17
--! P011 18
--! P011 23
local dev = chroot.debootstrapped("/srv/chroot/dev", os.debian("bookworm", "amd64"), {})
local dev2 = chroot.debootstrapped("/srv/other/dev", os.debian("bookworm", "amd64"), {})
local named = chroot.debootstrapped("/srv/chroot/ci", os.debian("bookworm", "amd64"), {},
                                    { name = "dev" })
local shared = chroot.debootstrapped("/srv/chroot/shared", os.debian("bookworm", "amd64"), {})

host "box" {
  os.debian("bookworm", "amd64"),
  chroot.provisioned(dev),
  chroot.provisioned(dev2),
  chroot.provisioned(named),
  chroot.provisioned(shared),
}
host "box2" {
  os.debian("bookworm", "amd64"),
  chroot.provisioned(shared),
}
