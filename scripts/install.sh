# Sourced by build.sh, tests/native/run.sh and fuzz/run.sh: installs a missing
# tool from Debian's packages when running as root, or says what to install.
#   have COMMAND                     is the command on PATH?
#   install_package PACKAGE [WHAT]   apt-get install PACKAGE (WHAT names what is missing)
apt_updated=0
have() { command -v "$1" >/dev/null 2>&1; }
install_package() {
  local who=${BASH_SOURCE[1]:-$0} what=${2:-$1}
  if [ "$(id -u)" != 0 ]; then
    echo "$who: $what is missing. Install Debian's package '$1' (sudo apt-get install $1) and run again." >&2
    exit 1
  fi
  echo "$who: installing $1 from Debian's packages..."
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
}
