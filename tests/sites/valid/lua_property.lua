-- Properties written in Lua: a motd owned by ops with its own revert, and
-- a kernel setting whose check reads /proc.

local motd = property {
  desc = "motd mentions the owner",
  targets = "UnixLike",
  check = function(sys) return sys:read("/etc/motd") == "owned by ops\n" end,
  apply = function(sys) sys:write("/etc/motd", "owned by ops\n", { mode = "0644" }) end,
  revert = function(sys) sys:remove("/etc/motd") end,
}

local forwarding = property {
  desc = "IPv4 forwarding on",
  targets = { "debian", "buntish" },
  check = function(sys) return sys:read("/proc/sys/net/ipv4/ip_forward") == "1\n" end,
  apply = function(sys)
    sys:run({ "sysctl", "-w", "net.ipv4.ip_forward=1" })
  end,
}

local metrics = property {
  desc = "metrics exporter listening",
  ports = { 9100 },
  check = function(sys) return sys:run({ "pgrep", "node_exporter" }).code == 0 end,
  apply = function(sys) sys:run({ "systemctl", "start", "prometheus-node-exporter" }) end,
}

host "router.example.com" {
  os.debian("bookworm", "amd64"),
  motd,
  forwarding:describe "router forwards packets",
  metrics:requires(apt.installed "prometheus-node-exporter"),
}

host "old.example.com" {
  os.debian("bullseye", "i386"),
  revert(motd),
}
