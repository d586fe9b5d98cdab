import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * A real nginx with the WebDAV module (Debian's nginx-light), started on 127.0.0.1 with a config
 * generated in a temp folder: the reference Bazel HTTP cache of the remote-cache tests. `.ci/run`
 * installs it; tests skip with NGINX_SKIP when it is absent.
 */
const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'].find((file) => fs.existsSync(file)) ?? null;
export const NGINX_SKIP =
  NGINX === null || !hasDav(NGINX)
    ? 'nginx with the WebDAV module is not installed (apt-get install nginx-light; .ci/run does): remote cache server tests skipped'
    : false;

function hasDav(binary: string): boolean {
  const result = spawnSync(binary, ['-V'], { encoding: 'utf8' });
  return /--with-http_dav_module/.test(`${result.stdout}${result.stderr}`);
}

export interface NginxCache {
  /** Base URL of the cache: GET and PUT on /ac/… and /cas/…. */
  url: string;
  /** Same storage; answers 507 (Insufficient Storage) to every PUT. */
  fullUrl: string;
  /** Answers 503 to everything. */
  brokenUrl: string;
  /** Same storage; answers 401 unless the Authorization header is `Bearer <token>`. */
  authUrl: string;
  /** Where the cache's files are (ac/, cas/). */
  dataDir: string;
  accessLog(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export async function startNginx(token = 'unused-token'): Promise<NginxCache> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-nginx-'));
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(path.join(dataDir, 'cache'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'tmp'));
  const port = await freePort();
  // The cache lives under /cache/ of the data root; the other locations alias it with a failure mode.
  const config = `
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 64; }
http {
  log_format cache '$request_method $uri $status auth=$http_authorization';
  access_log ${dir}/access.log cache;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:${port};
    location /cache/ {
      root ${dataDir};
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
    location /full/ {
      if ($request_method = PUT) { return 507; }
      alias ${dataDir}/cache/;
    }
    location /broken/ { return 503; }
    location /auth/ {
      if ($http_authorization != "Bearer ${token}") { return 401; }
      alias ${dataDir}/cache/;
      dav_methods PUT;
      create_full_put_path on;
    }
  }
}
`;
  fs.writeFileSync(path.join(dir, 'nginx.conf'), config);
  const child: ChildProcess = spawn(NGINX!, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let attempt = 0; ; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`nginx exited at start: ${stderr}${safeRead(path.join(dir, 'error.log'))}`);
    if (await canConnect(port)) break;
    if (attempt > 100) throw new Error(`nginx did not listen on 127.0.0.1:${port}: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/cache/`,
    fullUrl: `${base}/full/`,
    brokenUrl: `${base}/broken/`,
    authUrl: `${base}/auth/`,
    dataDir: path.join(dataDir, 'cache'),
    accessLog: () => safeRead(path.join(dir, 'access.log')),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function safeRead(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
