const fs=require("fs");const dir=process.argv[2];const roots=process.argv.slice(3);
const agg=new Map();let files=fs.readdirSync(dir);
function name(n){return n.callFrame.functionName+" "+n.callFrame.url.split("/").slice(-1)[0]+":"+n.callFrame.lineNumber}
for(const f of files){const p=JSON.parse(fs.readFileSync(dir+"/"+f));const byId=new Map(p.nodes.map(n=>[n.id,n]));
const dt=p.timeDeltas;const self=new Map();p.samples.forEach((s,i)=>self.set(s,(self.get(s)||0)+(dt[i]||0)));
const tot=new Map();function total(id){if(tot.has(id))return tot.get(id);const n=byId.get(id);let t=self.get(id)||0;for(const c of n.children||[])t+=total(c);tot.set(id,t);return t}
function walk(id,pathk){const n=byId.get(id);const k=pathk+"/"+name(n);agg.set(k,(agg.get(k)||0)+total(id));for(const c of n.children||[])walk(c,k)}
walk(p.nodes[0].id,"")}
const N=files.length;const rows=[...agg].filter(([k,t])=>t/N>=300).sort((a,b)=>a[0]<b[0]?-1:1);
for(const [k,t] of rows){const parts=k.split("/");if(roots.length&&!roots.some(r=>k.includes(r)))continue;console.log((t/N/1000).toFixed(2).padStart(6)," ".repeat(parts.length)+parts.at(-1))}
