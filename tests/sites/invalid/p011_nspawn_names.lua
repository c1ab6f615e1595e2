-- Two machines named "web" on one host: one name, one unit
-- (systemd-nspawn@web), one settings file.  P011 for the name, P007 for
-- the tree both would own.
local a = systemd.container("web", os.debian("bookworm", "amd64"), {})
local b = systemd.container("web", os.debian("bookworm", "amd64"), {
  file.has_content("/etc/motd", "b\n"),
})
host "box" {
  os.debian("bookworm", "amd64"),
  systemd.nspawned(a),
  systemd.nspawned(b),
}

--! P007 11
--! P011 11
