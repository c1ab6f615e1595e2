-- Roles wherever a property may stand: inside a nested list, in what a
-- role returns, and in a container's property list (where the role sees
-- the container).
local function web(h)
  return { apt.installed "nginx", file.has_content("/etc/motd", "web " .. h.name .. " on " .. h.os .. "\n") }
end
local function base(h)
  return { apt.installed "curl", h.suite == "bookworm" and { web } or {} }
end

host "roles.example.com" {
  os.debian("bookworm", "amd64"),
  { apt.installed "git", { base } },
  systemd.nspawned(systemd.container("webbox", os.debian("bookworm", "amd64"), { { web } })),
  chroot.provisioned(chroot.debootstrapped("/srv/chroot/build", os.debian("bookworm", "amd64"), { web })),
  docker.running(docker.container("app", "debian:bookworm", { os.debian("bookworm", "amd64"), web })),
}
