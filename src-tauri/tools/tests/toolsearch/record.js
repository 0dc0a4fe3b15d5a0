// Records tools/list of stdio MCP servers (scratch, not part of the repo).
const { spawn } = require('child_process');
const servers = [
  ['everything', '@modelcontextprotocol/server-everything', 'dist/index.js', []],
  ['filesystem', '@modelcontextprotocol/server-filesystem', 'dist/index.js', ['/tmp']],
  ['memory', '@modelcontextprotocol/server-memory', 'dist/index.js', []],
  ['github', '@modelcontextprotocol/server-github', 'dist/index.js', []],
  ['gitlab', '@modelcontextprotocol/server-gitlab', 'dist/index.js', []],
  ['slack', '@modelcontextprotocol/server-slack', 'dist/index.js', []],
  ['google_maps', '@modelcontextprotocol/server-google-maps', 'dist/index.js', []],
  ['brave_search', '@modelcontextprotocol/server-brave-search', 'dist/index.js', []],
  ['playwright', '@playwright/mcp', 'cli.js', []],
  ['chrome_devtools', 'chrome-devtools-mcp', 'build/src/bin/chrome-devtools-mcp.js', []],
  ['notion', '@notionhq/notion-mcp-server', 'bin/cli.mjs', []],
  ['supabase', '@supabase/mcp-server-supabase', 'dist/cli.js', ['--access-token', 'x']],
  ['kubernetes', 'mcp-server-kubernetes', 'dist/index.js', []],
  ['firecrawl', 'firecrawl-mcp', 'dist/index.js', []],
  ['sentry', '@sentry/mcp-server', 'dist/index.js', ['--access-token', 'x']],
  ['context7', '@upstash/context7-mcp', 'dist/index.js', []],
  ['puppeteer', '@modelcontextprotocol/server-puppeteer', 'dist/index.js', []],
];
function record([server, pkg, bin, args]) {
  return new Promise((resolve) => {
    const version = require(`./node_modules/${pkg}/package.json`).version;
    const env = { ...process.env, GITHUB_PERSONAL_ACCESS_TOKEN: 'x', GITLAB_PERSONAL_ACCESS_TOKEN: 'x', SLACK_BOT_TOKEN: 'x', SLACK_TEAM_ID: 'x', GOOGLE_MAPS_API_KEY: 'x', BRAVE_API_KEY: 'x', NOTION_TOKEN: 'x', FIRECRAWL_API_KEY: 'x', SENTRY_ACCESS_TOKEN: 'x', SUPABASE_ACCESS_TOKEN: 'x' };
    const p = spawn('node', [`node_modules/${pkg}/${bin}`, ...args], { env });
    let buf = '';
    const done = (tools, err) => { p.kill(); resolve({ server, package: pkg, version, tools, err }); };
    const t = setTimeout(() => done([], 'timeout'), 30000);
    p.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i); buf = buf.slice(i + 1);
        let m; try { m = JSON.parse(line); } catch { continue; }
        if (m.id === 1) {
          p.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
          p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }) + '\n');
        } else if (m.id === 2) { clearTimeout(t); done(m.result ? m.result.tools : [], m.error && JSON.stringify(m.error)); }
      }
    });
    p.stderr.on('data', () => {});
    p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gatehouse-recorder', version: '0' } } }) + '\n');
  });
}
(async () => {
  const out = [];
  for (const s of servers) {
    const r = await record(s);
    console.error(r.server, r.version, r.tools.length, r.err || '');
    out.push(r);
  }
  require('fs').writeFileSync('recorded.json', JSON.stringify(out, null, 1));
})();
