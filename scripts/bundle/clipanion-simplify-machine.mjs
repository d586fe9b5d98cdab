// Stands in for clipanion's simplifyMachine (lib/core.mjs) in the bundles: the bundle plugin injects
// this function's source in place of the original. clipanion compiles its parser on every run and
// folds each node's shortcuts into it; the original checks every transition it copies against all
// the node's transitions with .some() and a destructuring callback, quadratic work that a cold
// process runs in the interpreter (~5 ms of a cold query: the query command's options make 64 nodes
// and ~1,000 transitions). This is the same walk and the same machine, transitions in the same
// order, with the duplicate checks as set lookups. test/cli/clipanion-simplify-machine.test.ts
// compares the two on every command's machine. Self-contained: its source is copied as is.
export function simplifyMachine(input) {
  const visited = new Set();
  const process = (node) => {
    if (visited.has(node)) return;
    visited.add(node);
    const nodeDef = input.nodes[node];
    for (const segment of Object.keys(nodeDef.statics)) {
      const transitions = nodeDef.statics[segment];
      for (let i = 0; i < transitions.length; i++) process(transitions[i].to);
    }
    for (let i = 0; i < nodeDef.dynamics.length; i++) process(nodeDef.dynamics[i][1].to);
    for (let i = 0; i < nodeDef.shortcuts.length; i++) process(nodeDef.shortcuts[i].to);
    if (nodeDef.shortcuts.length === 0) return;
    const shortcuts = new Set();
    for (let i = 0; i < nodeDef.shortcuts.length; i++) shortcuts.add(nodeDef.shortcuts[i].to);
    // Targets already present, per static segment and per dynamic test (tests compare by identity).
    const staticTargets = new Map();
    const dynamicTargets = new Map();
    const targetsOf = (map, key) => {
      let targets = map.get(key);
      if (targets === undefined) {
        targets = new Set();
        map.set(key, targets);
      }
      return targets;
    };
    for (const segment of Object.keys(nodeDef.statics)) {
      const targets = targetsOf(staticTargets, segment);
      for (const transition of nodeDef.statics[segment]) targets.add(transition.to);
    }
    for (let i = 0; i < nodeDef.dynamics.length; i++) targetsOf(dynamicTargets, nodeDef.dynamics[i][0]).add(nodeDef.dynamics[i][1].to);
    while (nodeDef.shortcuts.length > 0) {
      const { to } = nodeDef.shortcuts.shift();
      const toDef = input.nodes[to];
      for (const segment of Object.keys(toDef.statics)) {
        if (!Object.hasOwn(nodeDef.statics, segment)) nodeDef.statics[segment] = [];
        const store = nodeDef.statics[segment];
        const targets = targetsOf(staticTargets, segment);
        const transitions = toDef.statics[segment];
        for (let i = 0; i < transitions.length; i++) {
          const transition = transitions[i];
          if (targets.has(transition.to)) continue;
          store.push(transition);
          targets.add(transition.to);
        }
      }
      const dynamics = toDef.dynamics;
      for (let i = 0; i < dynamics.length; i++) {
        const test = dynamics[i][0];
        const transition = dynamics[i][1];
        const targets = targetsOf(dynamicTargets, test);
        if (targets.has(transition.to)) continue;
        nodeDef.dynamics.push([test, transition]);
        targets.add(transition.to);
      }
      for (const transition of toDef.shortcuts) {
        if (!shortcuts.has(transition.to)) {
          nodeDef.shortcuts.push(transition);
          shortcuts.add(transition.to);
        }
      }
    }
  };
  process(0);
}
