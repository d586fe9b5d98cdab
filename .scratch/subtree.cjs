const fs=require("fs");const dir="/tmp/cprof";const f=dir+"/"+fs.readdirSync(dir).sort((a,b)=>fs.statSync(dir+"/"+b).mtimeMs-fs.statSync(dir+"/"+a).mtimeMs)[0];
const p=JSON.parse(fs.readFileSync(f));const byId=new Map(p.nodes.map(n=>[n.id,n]));
const dt=p.timeDeltas;const self=new Map();p.samples.forEach((s,i)=>self.set(s,(self.get(s)||0)+(dt[i]||0)));
const tot=new Map();function total(id){if(tot.has(id))return tot.get(id);const n=byId.get(id);let t=self.get(id)||0;for(const c of n.children||[])t+=total(c);tot.set(id,t);return t}
const roots=process.argv.slice(2);
function name(n){return n.callFrame.functionName+" "+n.callFrame.url.split("/").slice(-1)[0]+":"+n.callFrame.lineNumber}
function print(id,depth,maxd){const n=byId.get(id);const t=total(id);if(t<3000)return;console.log(" ".repeat(depth*2)+(t/1000).toFixed(1)+" "+name(n));if(depth<maxd)for(const c of (n.children||[]).sort((a,b)=>total(b)-total(a)))print(c,depth+1,maxd)}
for(const n of p.nodes){if(roots.includes(n.callFrame.functionName)){print(n.id,0,6)}}
