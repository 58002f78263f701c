/**
 * The analysis tree, built in the extraction process while it recurses: every child taken out of a
 * file (archive member, attachment, embedded object) becomes a node with its path, hashes and
 * status, and its bytes go to a file in the upload's own private folder, so the parent process can
 * hand them to clamd and YARA without extracting twice. A child that could not be opened (no
 * password worked, over a limit) is a node too, with the reason: never silently dropped.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Typed } from "./result.ts";
import { TextMarks } from "./text-spans.ts";

export type NodeStatus = "analysed" | "encrypted" | "limit" | "failed";

export interface NodeHashes {
  md5: string;
  sha1: string;
  sha256: string;
  sha512: string;
}

export interface TreeNode {
  id: number;
  parent: number | null;
  /** Names from the root down: ["invoice.eml", "invoice.zip", "eicar.com"]. */
  path: string[];
  name: string;
  size: number | null;
  type: string | null;
  status: NodeStatus;
  /** Why it is not `analysed`, or why not all of its children were taken out. */
  reason?: string;
  /** The budget that stopped it (status `limit`): nodes, depth, bytes, entries, time, text. */
  budget?: string;
  /** The root's are the upload's (computed while it arrived). */
  hashes?: NodeHashes;
  /** Where its bytes are; absent when they were not taken out (and for the root: the upload). */
  file?: string;
}

export interface TreeLimits {
  /** Nodes recorded at most (FILES_EXTRACT_MAX_ARCHIVE_ENTRIES). */
  maxNodes: number;
  /** Bytes of children written at most (FILES_EXTRACT_MAX_ARCHIVE_BYTES). */
  maxBytes: number;
}

/** Which budget a reason names (the reasons are the budget's own sentences). */
export function budgetOf(reason: string): string {
  if (/nesting deeper/.test(reason)) return "depth";
  if (/bytes/.test(reason)) return "bytes";
  if (/nodes/.test(reason)) return "nodes";
  if (/entries|objects|attachments/.test(reason)) return "entries";
  if (/time/.test(reason)) return "time";
  if (/text|FILES_EXTRACT_MAX_CHARS/.test(reason)) return "text";
  return "other";
}

export class Tree {
  readonly nodes: TreeNode[] = [];
  /** Each child's text marked as its own (text-spans.ts). */
  readonly marks = new TextMarks();
  readonly #dir: string | undefined;
  readonly #limits: TreeLimits;
  #bytesLeft: number;

  /** `dir`: the upload's private folder for its children (made by the parent process); none: not written. */
  constructor(rootName: string, rootSize: number, dir: string | undefined, limits: TreeLimits) {
    this.#dir = dir;
    this.#limits = limits;
    this.#bytesLeft = limits.maxBytes;
    this.nodes.push({
      id: 0,
      parent: null,
      path: [rootName],
      name: rootName,
      size: rootSize,
      type: null,
      status: "analysed",
    });
  }

  get root(): TreeNode {
    return this.nodes[0] as TreeNode;
  }

  /** A child taken out with its bytes: hashed and written; null (the parent marked) past the node count. */
  child(parent: TreeNode, name: string, bytes: Buffer): TreeNode | null {
    const node = this.#add(parent, name, bytes.length, "analysed");
    if (!node) return null;
    if (bytes.length > this.#bytesLeft) {
      this.#limit(node, `more than ${this.#limits.maxBytes} bytes of children taken out`);
      return node;
    }
    this.#bytesLeft -= bytes.length;
    node.hashes = hashesOf(bytes);
    if (this.#dir === undefined) return node;
    node.file = path.join(this.#dir, String(node.id));
    writeFileSync(node.file, bytes, { mode: 0o600 });
    return node;
  }

  /** A child that is not a file of its own (a message inside a message): no bytes, read in place. */
  part(parent: TreeNode, name: string, type: string): TreeNode | null {
    const node = this.#add(parent, name, null, "analysed");
    if (node) node.type = type;
    return node;
  }

  /** A child that is not read: encrypted with no password that worked, or over a limit. */
  skipped(
    parent: TreeNode,
    name: string,
    size: number | null,
    status: "encrypted" | "limit",
    reason: string,
  ) {
    const node = this.#add(parent, name, size, status);
    if (!node) return;
    node.reason = reason;
    if (status === "limit") node.budget = budgetOf(reason);
  }

  /** Not every child of `node` was listed or read: the node says which limit. */
  cut(node: TreeNode, reason: string): void {
    if (node.status === "analysed") this.#limit(node, reason);
  }

  /** The child's extraction is done: its type. */
  done(node: TreeNode, out: Typed): void {
    node.type = out.type;
  }

  failed(node: TreeNode, err: unknown): void {
    node.status = "failed";
    node.reason = err instanceof Error ? err.message : String(err);
  }

  #add(parent: TreeNode, name: string, size: number | null, status: NodeStatus): TreeNode | null {
    if (this.nodes.length >= this.#limits.maxNodes + 1) {
      this.cut(parent, `more than ${this.#limits.maxNodes} nodes`);
      return null;
    }
    const node: TreeNode = {
      id: this.nodes.length,
      parent: parent.id,
      path: [...parent.path, name],
      name,
      size,
      type: null,
      status,
    };
    this.nodes.push(node);
    return node;
  }

  #limit(node: TreeNode, reason: string): void {
    node.status = "limit";
    node.reason = reason;
    node.budget = budgetOf(reason);
  }
}

export function hashesOf(bytes: Uint8Array): NodeHashes {
  const of = (algorithm: string) => createHash(algorithm).update(bytes).digest("hex");
  return { md5: of("md5"), sha1: of("sha1"), sha256: of("sha256"), sha512: of("sha512") };
}
