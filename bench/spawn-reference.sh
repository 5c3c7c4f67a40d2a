# The cost of a fork from a small process: the system shell starting the same `/bin/sh -c true`
# as bench/spawn-reference.mjs, $2 at a time (it waits for each group of $2, having no way to
# wait for any one of them), $1 in all. Prints the shell's `times`: its own user and system time,
# then its children's.
total=$1
concurrency=$2
i=0
while [ "$i" -lt "$total" ]; do
  j=0
  while [ "$j" -lt "$concurrency" ] && [ "$i" -lt "$total" ]; do
    /bin/sh -c true </dev/null >/dev/null 2>&1 &
    j=$((j + 1))
    i=$((i + 1))
  done
  wait
done
times
