import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DOCKERFILE = join(PROJECT_ROOT, 'Dockerfile');

export interface Stage {
  /** The `AS` name. */
  readonly name: string | undefined;
  /** The image of `FROM`, with the ARGs declared before the first FROM substituted. */
  readonly image: string;
  /** The instructions after `FROM`, up to the next `FROM`. */
  readonly instructions: readonly Instruction[];
}

export interface ParsedDockerfile {
  readonly text: string;
  /** The ARGs before the first FROM, with their defaults. */
  readonly args: Readonly<Record<string, string>>;
  readonly stages: readonly Stage[];
}

/** The Dockerfile at the project root, parsed into its build stages. */
export function readDockerfile(text = readFileSync(DOCKERFILE, 'utf8')): ParsedDockerfile {
  const dockerfile = DockerfileParser.parse(text);
  const args: Record<string, string> = {};
  for (const arg of dockerfile.getInitialARGs()) {
    const property = arg.getProperty();
    if (property !== null) args[property.getName()] = property.getValue() ?? '';
  }
  const substitute = (value: string): string => value.replace(/\$\{(\w+)\}|\$(\w+)/g, (_m, a: string | undefined, b: string | undefined) => args[a ?? b ?? ''] ?? '');
  const stages: { name: string | undefined; image: string; instructions: Instruction[] }[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const from = dockerfile.getFROMs().find((f) => f.getRange().start.line === instruction.getRange().start.line);
    if (from !== undefined) {
      stages.push({ name: from.getBuildStage() ?? undefined, image: substitute(from.getImage() ?? ''), instructions: [] });
      continue;
    }
    stages.at(-1)?.instructions.push(instruction);
  }
  return { text, args, stages };
}

/** The instructions of a stage with this keyword (upper case). */
export function instructionsOf(stage: Stage, keyword: string): readonly Instruction[] {
  return stage.instructions.filter((i) => i.getKeyword() === keyword);
}

/** The one instruction of a stage with this keyword; throws when there are none or several. */
export function onlyInstruction(stage: Stage, keyword: string): Instruction {
  const found = instructionsOf(stage, keyword);
  if (found.length !== 1) throw new Error(`expected one ${keyword} in stage ${stage.name ?? '(unnamed)'}, found ${found.length}`);
  return found[0] as Instruction;
}

/** The words of an instruction's arguments (shell form, as Docker splits them for RUN display). */
export function words(instruction: Instruction): string[] {
  return instruction.getArguments().map((a) => a.getValue());
}

/**
 * The exec (JSON) form of CMD, ENTRYPOINT or a HEALTHCHECK's CMD; throws for the shell form, which
 * would run under /bin/sh -c and keep signals from reaching termsync.
 */
export function execForm(instruction: Instruction): string[] {
  const content = instruction.getArgumentsContent() ?? '';
  const json = instruction.getKeyword() === 'HEALTHCHECK' ? /\bCMD\s+(\[[\s\S]*\])\s*$/.exec(content)?.[1] : content.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(json ?? '');
  } catch {
    throw new Error(`${instruction.getKeyword()} on line ${instruction.getRange().start.line + 1} is not in exec (JSON array) form: ${content}`);
  }
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string')) throw new Error(`${instruction.getKeyword()} is not a JSON array of strings`);
  return parsed;
}
