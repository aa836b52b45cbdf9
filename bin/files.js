// Writing --out for every command (bin/posenc.js and bin/rope-config.js): a
// file is written whole or not at all. The data goes to a temporary file in
// the target's folder, renamed (or, without --force, linked) over the target
// only once complete, and removed on an error, SIGINT, SIGTERM or SIGHUP.
import { openSync, writeSync, closeSync, fsyncSync, renameSync, linkSync, unlinkSync, statSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { UsageError, shown, PATH } from './args.js';

/**
 * Refuses, before anything is computed, an --out whose folder does not exist,
 * a folder, anything that is not a regular file (a FIFO, a device such as
 * /dev/null, a socket: renaming over it would replace the node, /dev's too
 * for root; use --out - and redirect), without --force anything already
 * there, a dangling symbolic link included (linkSync fails on it only after
 * the work), and with it a symbolic link (the rename would replace the link).
 */
export function checkTarget(out, force) {
  // an empty name passed every check below and failed the final link or rename after the work (exit 1, "cannot write  (ENOENT")
  if (!out) throw new UsageError('--out is empty: name a file, or - for standard output');
  // x.npy/ names a folder: path.dirname read it as x.npy in ., and the link failed (ENOENT) after the work.
  if (out.endsWith('/') || out.endsWith(path.sep)) throw new UsageError(`--out ${shown(out, PATH)} ends in a slash: name a file`);
  const dir = path.dirname(out);
  let folder;
  try {
    folder = statSync(dir);
  } catch {
    throw new UsageError(`--out ${shown(out, PATH)}: the folder ${shown(dir, PATH)} does not exist`);
  }
  if (!folder.isDirectory()) throw new UsageError(`--out ${shown(out, PATH)}: ${shown(dir, PATH)} is not a folder`);
  let node, target;
  try {
    node = lstatSync(out, { throwIfNoEntry: false });
    target = node && statSync(out, { throwIfNoEntry: false }); // through a symbolic link; undefined for a dangling one
  } catch (e) {
    // a name past NAME_MAX (ENAMETOOLONG), a link to itself (ELOOP): a raw stack trace, exit 1, for table and the others
    throw new UsageError(`--out ${shown(out, PATH)} cannot be used (${e.code ?? e.message}): name a file posenc can write`);
  }
  if (!node) return;
  if (target?.isDirectory()) throw new UsageError(`--out ${shown(out, PATH)} is a folder`);
  if (target && !target.isFile()) throw new UsageError(`--out ${shown(out, PATH)} is not a regular file (a FIFO, device or socket): give --out - and redirect standard output to it`);
  if (!force) throw new UsageError(`${shown(out, PATH)} exists; add --force to overwrite it`);
  // The file is renamed into place, which replaces a link rather than writing through it: --out /dev/stdout --force,
  // standard output redirected to a file, replaced /dev/stdout itself with a regular file (for root: for every process),
  // and the redirected file stayed empty.
  if (node.isSymbolicLink()) throw new UsageError(`--out ${shown(out, PATH)} is a symbolic link: posenc would replace the link, not write through it; give the file it points to, or --out - and redirect standard output`);
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * writeSync may write less than asked (a disk filling up does that first):
 * loop until done or it throws. Standard output can be a non-blocking pipe
 * (Node makes a pipe non-blocking once process.stderr is used, and `2>&1 |`
 * shares that pipe with stdout):
 * when the reader is slower, EAGAIN means wait a millisecond and write on
 * (it failed `posenc table --out - 2>&1 | slow` with exit 1 after 64 KiB).
 */
export function writeAll(fd, bytes) {
  for (let done = 0; done < bytes.length;) {
    try {
      done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/** A character as its \u escape. */
const escape = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
/**
 * Text for a terminal: control characters but tab, newline and carriage return (ESC, the rest of C0, DEL and C1)
 * as \u escapes, so that strings a config holds (its model_type, its layer types, HF's warnings and posenc's
 * messages quoting them) cannot drive the terminal showing them ("\u001b[2J" cleared it, "\u001b]0;..." retitled
 * it). Inside a JSON string such an escape reads back as the same character. The same for the invisible marks that
 * reorder text (bidirectional controls, U+2028/2029): "evil\u202ellama" showed a name spelled backwards.
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
export const printable = (text) => text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, escape);
/**
 * One line of a report or message that quotes a config's strings: printable(), and its tabs, newlines and carriage
 * returns as \u escapes too. Kept raw, a layer type or rope key holding "\n" added lines of its own to inspect's
 * report ("posenc: everything checked"), and a model_type "evil\rllama" showed as llama.
 */
export const oneLine = (text) => printable(String(text)).replace(/[\t\n\r]/g, escape);

/**
 * A message on stderr. A closed or broken stderr (`2>&1 | head -c 1`) loses
 * it: process.stderr's EPIPE was an unhandled 'error' event that ended the
 * process mid-write, leaving its temporary file behind.
 */
export function say(text) {
  try {
    writeAll(2, Buffer.from(printable(text)));
  } catch { /* stderr is gone: messages are not the data */ }
}

/**
 * Text for standard output (help, version), written as the data is: into a pipe already closed
 * (`posenc --help | true`) process.stdout.write's EPIPE escaped as an unhandled 'error' event, a
 * stack trace. The exit status: 0, or 1 with a message on stderr.
 */
export function print(text) {
  try {
    writeAll(1, Buffer.from(text));
    return 0;
  } catch (e) {
    say(`posenc: cannot write standard output (${e.code}: ${e.message.replace(/^\w+: /, '')}); stopped\n`);
    return 1;
  }
}

// The signals that stop a write and remove its temporary file, with their numbers (exit status 128 + n).
// SIGHUP (the terminal or ssh session closed) ended the process the default way, leaving the file.
const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };

/**
 * A temporary file beside `target` (same folder, hence the same file system,
 * so the final rename is atomic). commit() flushes it to disk and gives it the
 * target's name; without `force` it links instead of renaming, which fails
 * rather than replace a file that appeared meanwhile. discard() removes it;
 * so does a SIGINT, SIGTERM or SIGHUP (a terminal closed) while it is open.
 */
export function atomicFile(target, force) {
  // At most 64 plain characters of the target's name: a name within NAME_MAX (255 bytes) made a temporary
  // name past it (ENAMETOOLONG, exit 1 for a valid --out).
  const stem = path.basename(target).replace(/[^\w.-]/g, '_').slice(0, 64);
  const temp = path.join(path.dirname(target), `.${stem}.${process.pid}.posenc-partial`);
  let fd = -1;
  const remove = () => {
    if (fd >= 0) closeSync(fd);
    fd = -1;
    try { unlinkSync(temp); } catch { /* already gone */ }
  };
  const onSignal = (signal) => {
    remove();
    say(`\nposenc: ${signal}: stopped, ${target} not written\n`);
    process.exit(128 + SIGNALS[signal]);
  };
  // The handlers come first: a signal that arrived after the file was created
  // but before they existed would end the process the default way, leaving the
  // file behind (seen under load: the test's SIGTERM exited with no status).
  for (const signal in SIGNALS) process.once(signal, onSignal);
  const done = () => { for (const signal in SIGNALS) process.off(signal, onSignal); };
  try {
    fd = openSync(temp, 'wx');
  } catch (e) {
    done();
    throw e;
  }
  return {
    fd,
    commit() {
      fsyncSync(fd);
      closeSync(fd);
      fd = -1;
      try {
        if (force) renameSync(temp, target);
        else linkSync(temp, target);
      } catch (e) {
        if (e.code === 'EEXIST') throw new UsageError(`${shown(target, PATH)} appeared while writing; nothing replaced (add --force to overwrite)`);
        throw e;
      } finally {
        remove();
        done();
      }
    },
    discard() {
      remove();
      done();
    },
  };
}
