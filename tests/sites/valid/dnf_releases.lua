-- dnf where it is the package manager: RHEL and its rebuilds from 8,
-- Fedora from 22 (and rawhide).
host "centos8.example.com" { os.centos("8", "amd64"), dnf.installed "nginx" }
host "rhel94.example.com" { os.rhel("9.4", "amd64"), packages.installed { "git" } }
host "rocky10.example.com" { os.rocky("10", "amd64"), dnf.upgraded() }
host "fedora22.example.com" { os.fedora("22", "amd64"), dnf.installed "httpd" }
host "rawhide.example.com" { os.fedora("rawhide", "amd64"), dnf.installed "httpd" }
