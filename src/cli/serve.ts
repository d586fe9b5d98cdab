import * as path from 'node:path';
import { Command, Option } from 'clipanion';
import { EpistemeError, describeCause } from '../failure.js';
import type { CommandResult } from './base-command.js';
import { Output } from './output.js';
import { WorkspaceCommand } from './workspace-command.js';

export class ServeCommand extends WorkspaceCommand {
  static override paths = [['serve']];
  static override usage = Command.Usage({
    category: 'Retrieval',
    description: "Serve the workspace's search index to agents: a Model Context Protocol server over stdio.",
    details:
      `
      Starts an MCP server on stdin/stdout (one JSON-RPC message per line) for an MCP client (a coding agent, an IDE) to launch. ` +
      `It loads the search index once and keeps it: a warm search costs a fraction of a cold \`episteme query\`. Tools:

      - \`search\`: the options of \`episteme query\` (schema/query-request.schema.json); the answer is what \`query --json\` prints, ` +
      `byte for byte.
      - \`read\`: the section a citation names (a hit's chunkId or sourceUrl#fragment), bounded; what \`episteme show --json\` prints.
      - \`status\`: the generation served, the targets that are stale and why (as \`explain\` says), and the build command.
      - \`build\`: \`episteme build\` of the given targets (default the search index), refused with \`server-read-only\` under ` +
      `--read-only.

      When a build (this server's, \`watch\`, CI, another process) commits a new search index, the server switches to it between ` +
      `two requests: an answer never mixes generations, and one from an index that a newer chunk index superseded says so ` +
      `(\`build-in-progress\`, \`stale-index\`), as \`query\` does. A malformed request is a JSON-RPC error -32602 whose data is the CLI ` +
      `error (code, message, hint); a line that is not JSON is answered with -32700, one that is not a JSON-RPC message or is ` +
      `longer than 4 MiB with -32600 (id null). A request that fails is a tool result with isError and the failure ` +
      `envelope. When its stdin closes, the server answers the requests it has read, then ends; SIGINT or SIGTERM end ` +
      `it at once. Errors before it starts (no workspace, a bad ` +
      `config) go to stderr, exit 2.
    `,
    examples: [
      ['Serve the workspace in the current folder', 'episteme serve'],
      ['Serve another workspace, without the build tool', 'episteme serve --config ../standards/episteme.json --read-only'],
    ],
  });
  readonly commandName = 'serve';
  readOnly = Option.Boolean('--read-only', false, {
    description: 'Refuse the build tool (server-read-only): for agents that must not write the workspace.',
  });

  override async execute(): Promise<number> {
    // stdout is the protocol's: whatever goes wrong before the server starts is said on stderr.
    const output = new Output(this.commandName, false, 'never', this.context.stderr, () => this.context.stderr);
    try {
      if (this.map === '-' || this.manifest === '-')
        throw new EpistemeError('usage-error', 'serve reads MCP messages on stdin, so the map or manifest cannot come from stdin too.', {
          hint: 'Name the file, or use --config.',
        });
      const ws = await this.workspace();
      const searchIndexTarget = `${ws.outputs.chunks}/search-index.json`;
      const index = path.relative(process.cwd(), path.join(ws.root, searchIndexTarget)).split(path.sep).join('/');
      const workspaceArgs = [
        ...(this.config !== undefined ? ['--config', this.config] : []),
        ...(this.map !== undefined ? ['--map', this.map] : []),
        ...(this.manifest !== undefined ? ['--manifest', this.manifest] : []),
        ...(this.maxInputBytes !== undefined ? ['--max-input-bytes', String(this.maxInputBytes)] : []),
      ];
      const { serve } = await import('./mcp-server.js');
      return await serve({
        index,
        searchIndexTarget,
        workspaceArgs,
        readOnly: this.readOnly,
        debug: this.debug,
        loadPlan: async () => {
          const { planBuild } = await import('../graph/plan.js');
          const summary = await planBuild(await this.workspace(), [searchIndexTarget], 'explain');
          return { targets: summary.targets as unknown as Record<string, unknown>[] };
        },
      });
    } catch (error) {
      if (error instanceof EpistemeError)
        return output.failure({
          code: error.code,
          message: error.message,
          hint: error.hint,
          details: error.details,
          debug: this.debug && error.cause !== undefined ? describeCause(error.cause) : undefined,
        });
      return output.failure({
        code: 'internal-error',
        message: `Unexpected failure: ${error instanceof Error ? error.message : String(error)}`,
        hint: 'Rerun with --debug for details, and report it.',
        debug: this.debug ? describeCause(error) : undefined,
      });
    }
  }

  async run(): Promise<CommandResult> {
    throw new Error('serve runs in execute()');
  }
}
