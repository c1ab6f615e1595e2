-- A list of packages that also has string keys is refused, wherever
-- Lua happens to store the keys (here the integer keys sit in the hash
-- part, and a string key comes before them in traversal order).
--! P012 7
host "web" {
  os.debian("bookworm", "amd64"),
  apt.installed { ["k4"] = 1, [1] = "nginx", [2] = "curl", ["z4"] = 2 },
}
