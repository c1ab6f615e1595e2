-- A systemd-nspawn machine's tree is named by an absolute path: a relative
-- one would depend on where prop runs.  Its machine name is a host name.
local rel = systemd.container("rel", os.debian("bookworm", "amd64"), {}, { path = "srv/rel" })
local odd = systemd.container("odd name", os.debian("bookworm", "amd64"), {})
local bsd = systemd.container("bsd", os.freebsd("14.1-RELEASE", "amd64"), {})
host "box" {
  os.debian("bookworm", "amd64"),
  systemd.nspawned(rel),
  systemd.nspawned("web"),
}

--! P012 3
--! P012 4
--! P012 5
--! P012 9
