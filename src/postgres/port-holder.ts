import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Who listens on a TCP port of this machine, in words ("the PostgreSQL of /srv/a/.orbit/postgres
 * (pid 812)"), read from Linux's /proc: the listening socket's inode in /proc/net/tcp*, the
 * process holding it among /proc/<pid>/fd. Undefined where that cannot be seen (another OS,
 * another user's process when Orbit is not root). No tool such as ss or lsof is needed.
 */
export function describePortHolder(port: number): string | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to see
    }
    for (const fd of fds) {
      const inode = /^socket:\[(\d+)\]$/.exec(safely(() => readlinkSync(`/proc/${pid}/fd/${fd}`)) ?? '')?.[1];
      if (inode !== undefined && inodes.has(inode)) return describeProcess(pid);
    }
  }
  return undefined;
}

function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (safely(() => readFileSync(table, 'utf8')) ?? '').split('\n').slice(1)) {
      // sl local_address rem_address st ... inode: "0100007F:D529 00000000:0000 0A ..."
      const fields = line.trim().split(/\s+/);
      const localPort = Number.parseInt(fields[1]?.split(':')[1] ?? '', 16);
      if (fields[3] === '0A' && localPort === port && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

function describeProcess(pid: string): string {
  const args = (safely(() => readFileSync(`/proc/${pid}/cmdline`, 'utf8')) ?? '').split('\0');
  const dataDir = args[args.indexOf('-D') + 1];
  if (args.includes('-D') && dataDir) return `the PostgreSQL of ${dataDir} (pid ${pid})`;
  const name = safely(() => readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
  return `${name ?? 'a process'} (pid ${pid})`;
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
