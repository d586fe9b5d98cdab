const fs=require('fs');const {isUtf8}=require('buffer');
const bytes=fs.readFileSync('/work/shared/corpus/dev/whatwg/dom.html');
function t(name,fn,n=15){fn();const a=[];for(let i=0;i<n;i++){const s=performance.now();fn();a.push(performance.now()-s)}a.sort((x,y)=>x-y);console.log(name.padEnd(30),a[n>>1].toFixed(2))}
let s;
t('TextDecoder fatal',()=>{s=new TextDecoder('utf-8',{fatal:true}).decode(bytes)});
t('isUtf8',()=>isUtf8(bytes));
t('toString',()=>{s=bytes.toString('utf8')});
t('utf8Slice? latin1 toString',()=>bytes.toString('latin1'));
let two=false;for(let i=0;i<s.length;i++)if(s.charCodeAt(i)>255){two=true;break}
console.log('two-byte',two,s.length);
t('Buffer.from(str)',()=>Buffer.from(s,'utf8'));
const te=new TextEncoder();
t('TextEncoder.encode',()=>te.encode(s));
t('Buffer.byteLength',()=>Buffer.byteLength(s));
t('encodeInto',()=>{const b=new Uint8Array(s.length*3);te.encodeInto(s,b)});
const json=JSON.stringify({a:s});
t('Buffer.from(json)',()=>Buffer.from(json,'utf8'));
