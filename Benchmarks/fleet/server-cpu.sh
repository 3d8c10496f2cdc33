# Sourced by the fleet benchmarks.
# server_cpu DIR: CPU seconds (user + system) used so far by the throwaway PostgreSQL in DIR: the
# postmaster's own and that of its reaped children (backends of clients that left), plus its
# live children's.
server_cpu() {
  local postmaster child total
  postmaster=$(head -1 "$1/data/postmaster.pid")
  total=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$postmaster/stat")
  for child in $(pgrep -P "$postmaster"); do
    total=$(awk -v t="$total" '{ print t + $14 + $15 }' "/proc/$child/stat" 2>/dev/null || echo "$total")
  done
  python3 -c "import os, sys; print(float(sys.argv[1]) / os.sysconf('SC_CLK_TCK'))" "$total"
}
