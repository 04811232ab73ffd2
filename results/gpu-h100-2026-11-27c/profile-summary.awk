# cubecl profile log: per-kernel launch lines "| DURATION | NAME"; sums by name.
/^\| [0-9.]+(ns|µs|ms|s) +\| / {
  n = split($0, p, "|"); d = p[2]; gsub(/ /, "", d);
  name = p[3]; for (i = 4; i < n; i++) name = name "|" p[i]; gsub(/^ +| +$/, "", name); sub(/_[0-9a-f]+$/, "", name);
  v = d + 0; if (d ~ /ns$/) v /= 1e6; else if (d ~ /µs$/) v /= 1e3; else if (d ~ /ms$/) v *= 1; else v *= 1e3;
  t[name] += v; c[name]++; total += v; launches++;
}
/START_KERNEL_COMPILATION/ { compiles++ }
END {
  printf "launches %d, kernel time %.1f ms, compilations %d\n", launches, total, compiles;
  for (k in t) printf "%10.1f ms %7d  %s\n", t[k], c[k], k | "sort -rn | head -25";
}
