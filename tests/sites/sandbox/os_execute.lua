-- Inside a site `os` is prop's OS module: os.execute does not exist.
--! fatal 3 os has no recipe "execute"
os.execute("touch /tmp/prop-sandbox-escaped")
host "x" { file.absent "/tmp/x" }
