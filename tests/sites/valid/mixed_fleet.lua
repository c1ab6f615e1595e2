-- A fleet of Debian, Ubuntu and FreeBSD machines sharing one baseline,
-- with pick_os choosing the package manager per host.

local function baseline(motd)
  return props {
    packages.upgraded(),
    pick_os(apt.installed { "vim", "htop" }, pkg.installed { "vim", "htop" }),
    file.has_content("/etc/motd", motd .. "\n"),
    user.account("ops", { uid = 900, shell = "/bin/sh" }),
  }
end

local machines = {
  { name = "deb1.example.com", os = os.debian("bookworm", "amd64"), ip = "192.0.2.101" },
  { name = "deb2.example.com", os = os.debian("trixie", "arm64"), ip = "192.0.2.102" },
  { name = "ubu1.example.com", os = os.buntish("24.04", "amd64"), ip = "192.0.2.103" },
  { name = "bsd1.example.com", os = os.freebsd("14.1-RELEASE", "amd64"), ip = "192.0.2.104" },
}

for _, m in ipairs(machines) do
  host(m.name, {
    m.os,
    ipv4(m.ip),
    baseline("Welcome to " .. m.name),
    hostname.set(m.name),
  })
end
