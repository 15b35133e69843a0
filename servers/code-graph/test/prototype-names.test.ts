import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CodeGraph } from '../src/graph/code-graph.js';
import { languageSupport } from '../src/graph/languages.js';
import { callersOf, type FixtureCopy, indexedGraph } from './fixture-graph.js';

/**
 * Names from source code that are also Object.prototype's: a lookup keyed by them in a plain
 * object finds a function where it expected a symbol, a type or nothing. Each language's program
 * uses them as classes, methods, fields, imports and calls; the index must take every file in and
 * bind the calls as it binds any other.
 */
interface Program {
  files: Record<string, string>;
  /**
   * Symbols (in the file given when the name has a declaration besides its definition), each
   * with its callers as `caller path:line…`. Pairs, not an object: `__proto__` is a key here too.
   */
  callers: [symbol: string, callers: string[], file?: string][];
}

/** TypeScript and TSX read the same program; only the files' extension differs. */
function typescriptProgram(extension: 'ts' | 'tsx'): Program {
  return {
    files: {
      [`a.${extension}`]: `export class Helper {
  run(): number {
    return 1;
  }
}

export class constructor {
  toString(): string {
    return 'x';
  }
}

export class Box {
  __proto__: Helper = new Helper();
  hasOwnProperty: constructor = new constructor();

  valueOf(): number {
    this.hasOwnProperty.toString();
    return this.__proto__.run();
  }
}

export class Plain {
  helper: Helper = new Helper();

  guess(): number {
    this.toString.run();
    this.valueOf.run();
    return this.constructor.run();
  }
}
`,
      [`b.${extension}`]: `import { Box, constructor as toString } from './a';
import * as valueOf from './a';

export function hasOwnProperty(): number {
  new toString().toString();
  new valueOf.Helper().run();
  return new Box().valueOf();
}
`,
    },
    callers: [
      ['Helper.run', [`Box.valueOf a.${extension}:19`, `hasOwnProperty b.${extension}:6`]],
      ['constructor.toString', [`Box.valueOf a.${extension}:18`, `hasOwnProperty b.${extension}:5`]],
      ['Box.valueOf', [`hasOwnProperty b.${extension}:7`]],
    ],
  };
}

const PROGRAMS: Record<string, Program> = {
  typescript: typescriptProgram('ts'),
  tsx: typescriptProgram('tsx'),
  javascript: {
    files: {
      'a.js': `export class Helper {
  run() {
    return 1;
  }
}

export class constructor {
  toString() {
    return 'x';
  }
}

export class Box {
  constructor() {
    this.__proto__ = new Helper();
    this.hasOwnProperty = new constructor();
  }

  valueOf() {
    this.hasOwnProperty.toString();
    return this.__proto__.run();
  }
}
`,
      'b.js': `import { Box, constructor as toString } from './a.js';
import * as valueOf from './a.js';

export function hasOwnProperty() {
  new toString().toString();
  new valueOf.Helper().run();
  return new Box().valueOf();
}
`,
    },
    callers: [
      ['Helper.run', ['hasOwnProperty b.js:6']],
      ['constructor.toString', ['hasOwnProperty b.js:5']],
      ['Box.valueOf', ['hasOwnProperty b.js:7']],
    ],
  },
  python: {
    files: {
      'a.py': `class Helper:
    def run(self):
        return 1

class constructor:
    def toString(self):
        return 2

class Box:
    def __init__(self):
        self.constructor: Helper = Helper()
        self.__proto__: Helper = Helper()
        self.hasOwnProperty: constructor = constructor()

    def valueOf(self):
        self.hasOwnProperty.toString()
        self.__proto__.run()
        return self.constructor.run()

class Plain:
    def __init__(self):
        self.helper: Helper = Helper()

    def guess(self):
        self.toString.run()
        self.valueOf.run()
        return self.constructor.run()
`,
      'b.py': `from a import Box, constructor as toString
from a import valueOf, __proto__

def hasOwnProperty():
    toString().toString()
    return Box().valueOf()
`,
    },
    callers: [
      ['Helper.run', ['Box.valueOf a.py:17 a.py:18']],
      ['constructor.toString', ['Box.valueOf a.py:16', 'hasOwnProperty b.py:5']],
      ['Box.valueOf', ['hasOwnProperty b.py:6']],
    ],
  },
  go: {
    files: {
      'go.mod': `module example.com/proto

go 1.22
`,
      'a/a.go': `package a

type Helper struct{}

func (h *Helper) Run() int { return 1 }

type constructor struct {
	toString *Helper
}

func (c *constructor) valueOf() int {
	return c.toString.Run()
}

func hasOwnProperty() int {
	c := &constructor{}
	return c.valueOf()
}
`,
      'b/b.go': `package b

import __proto__ "example.com/proto/a"

func toString() int {
	h := &__proto__.Helper{}
	return h.Run()
}
`,
    },
    callers: [
      ['Helper.Run', ['constructor.valueOf a/a.go:12', 'toString b/b.go:7']],
      ['constructor.valueOf', ['hasOwnProperty a/a.go:17']],
    ],
  },
  rust: {
    files: {
      'Cargo.toml': `[package]
name = "proto"
version = "0.1.0"
`,
      'src/lib.rs': `mod a;
mod b;
`,
      'src/a.rs': `pub struct Helper;

impl Helper {
    pub fn run(&self) -> i32 { 1 }
}

pub struct constructor {
    pub toString: Helper,
}

impl constructor {
    pub fn valueOf(&self) -> i32 {
        self.toString.run()
    }
}

pub fn hasOwnProperty(c: &constructor) -> i32 {
    c.valueOf()
}
`,
      'src/b.rs': `use crate::a::{hasOwnProperty as __proto__, constructor};

pub fn toString(c: &constructor) -> i32 {
    __proto__(c)
}
`,
    },
    callers: [
      ['Helper.run', ['constructor.valueOf src/a.rs:13']],
      ['constructor.valueOf', ['hasOwnProperty src/a.rs:18']],
      ['hasOwnProperty', ['toString src/b.rs:4']],
    ],
  },
  java: {
    files: {
      'src/proto/Helper.java': `package proto;

public class Helper {
    public int run() { return 1; }
}
`,
      'src/proto/constructor.java': `package proto;

public class constructor {
    private Helper toString = new Helper();

    public int valueOf() {
        return toString.run();
    }

    public int hasOwnProperty() {
        return this.valueOf();
    }
}
`,
      'src/other/__proto__.java': `package other;

import proto.constructor;

public class __proto__ {
    public int toString(constructor c) {
        return c.hasOwnProperty();
    }
}
`,
    },
    callers: [
      ['Helper.run', ['constructor.valueOf src/proto/constructor.java:7']],
      ['constructor.valueOf', ['constructor.hasOwnProperty src/proto/constructor.java:11']],
      ['constructor.hasOwnProperty', ['__proto__.toString src/other/__proto__.java:7']],
    ],
  },
  csharp: {
    files: {
      'Helper.cs': `namespace Proto
{
    public class Helper
    {
        public int Run() { return 1; }
    }
}
`,
      'Constructor.cs': `namespace Proto
{
    public class constructor
    {
        private Helper toString = new Helper();

        public int valueOf()
        {
            return toString.Run();
        }

        public int hasOwnProperty()
        {
            return this.valueOf();
        }
    }
}
`,
      'Other.cs': `using Proto;

namespace Other
{
    public class __proto__
    {
        public int toString(constructor c)
        {
            return c.hasOwnProperty();
        }
    }
}
`,
    },
    callers: [
      ['Helper.Run', ['constructor.valueOf Constructor.cs:9']],
      ['constructor.valueOf', ['constructor.hasOwnProperty Constructor.cs:14']],
      ['constructor.hasOwnProperty', ['__proto__.toString Other.cs:9']],
    ],
  },
  c: {
    files: {
      'proto.h': `int toString(int constructor);
int hasOwnProperty(void);
`,
      'proto.c': `#include "proto.h"

struct __proto__ {
    int constructor;
    int valueOf;
};

int toString(int constructor) {
    return constructor + 1;
}

int hasOwnProperty(void) {
    struct __proto__ p = { 1, 2 };
    return toString(p.constructor);
}
`,
      'main.c': `#include "proto.h"

int valueOf(void) {
    return hasOwnProperty() + toString(2);
}
`,
    },
    callers: [
      ['toString', ['valueOf main.c:4', 'hasOwnProperty proto.c:14'], 'proto.c'],
      ['hasOwnProperty', ['valueOf main.c:4'], 'proto.c'],
    ],
  },
  cpp: {
    files: {
      'proto.hpp': `class Helper {
public:
    int run();
};

class constructor {
public:
    Helper toString;
    int valueOf();
    int hasOwnProperty();
};
`,
      'proto.cpp': `#include "proto.hpp"

int Helper::run() { return 1; }

int constructor::valueOf() {
    return this->toString.run();
}

int constructor::hasOwnProperty() {
    return valueOf();
}
`,
      'main.cpp': `#include "proto.hpp"

int __proto__() {
    constructor c;
    return c.hasOwnProperty();
}
`,
    },
    callers: [
      ['Helper.run', ['constructor.valueOf proto.cpp:6'], 'proto.cpp'],
      ['constructor.valueOf', ['constructor.hasOwnProperty proto.cpp:10'], 'proto.cpp'],
      ['constructor.hasOwnProperty', ['__proto__ main.cpp:5'], 'proto.cpp'],
    ],
  },
  ruby: {
    files: {
      'lib/proto.rb': `class Helper
  def run
    1
  end
end

class Constructor
  def constructor
    Helper.new.run
  end

  def valueOf
    constructor()
  end

  def hasOwnProperty
    self.valueOf
  end
end
`,
      'app.rb': `require_relative 'lib/proto'

def __proto__
  Constructor.new.hasOwnProperty
end

def toString
  __proto__()
end
`,
    },
    callers: [
      ['Helper.run', ['Constructor.constructor lib/proto.rb:9']],
      ['Constructor.constructor', ['Constructor.valueOf lib/proto.rb:13']],
      ['Constructor.valueOf', ['Constructor.hasOwnProperty lib/proto.rb:17']],
      ['Constructor.hasOwnProperty', ['__proto__ app.rb:4']],
      ['__proto__', ['toString app.rb:8']],
    ],
  },
  php: {
    files: {
      'src/Proto.php': `<?php
namespace Proto;

class Helper
{
    public function run() { return 1; }
}

class constructor
{
    private Helper $toString;

    public function __construct() { $this->toString = new Helper(); }

    public function valueOf() { return $this->toString->run(); }

    public function hasOwnProperty() { return $this->valueOf(); }
}
`,
      'index.php': `<?php
require_once 'src/Proto.php';

use Proto\\constructor as __proto__;

function toString() {
    $c = new __proto__();
    return $c->hasOwnProperty();
}
`,
    },
    callers: [
      ['Proto.Helper.run', ['Proto.constructor.valueOf src/Proto.php:15']],
      ['Proto.constructor.valueOf', ['Proto.constructor.hasOwnProperty src/Proto.php:17']],
      ['Proto.constructor.hasOwnProperty', ['toString index.php:8']],
    ],
  },
  bash: {
    files: {
      'lib/proto.sh': `constructor() {
  echo 1
}

hasOwnProperty() {
  constructor
}
`,
      'bin/main.sh': `#!/usr/bin/env bash
source ../lib/proto.sh

toString() {
  hasOwnProperty
  __proto__
}

__proto__() {
  constructor
}
`,
    },
    callers: [
      ['constructor', ['__proto__ bin/main.sh:10', 'hasOwnProperty lib/proto.sh:6']],
      ['hasOwnProperty', ['toString bin/main.sh:5']],
      ['__proto__', ['toString bin/main.sh:6']],
    ],
  },
  elixir: {
    files: {
      'lib/proto.ex': `defmodule Proto.Constructor do
  def constructor(x), do: x + 1

  def hasOwnProperty(x) do
    constructor(x)
  end
end

defmodule Proto.Other do
  alias Proto.Constructor

  def toString(x) do
    Constructor.hasOwnProperty(x)
  end
end
`,
    },
    callers: [
      ['Proto.Constructor.constructor', ['Proto.Constructor.hasOwnProperty lib/proto.ex:5']],
      ['Proto.Constructor.hasOwnProperty', ['Proto.Other.toString lib/proto.ex:13']],
    ],
  },
  haskell: {
    files: {
      'src/Proto.hs': `module Proto where

constructor :: Int -> Int
constructor x = x + 1

hasOwnProperty :: Int -> Int
hasOwnProperty x = constructor x

valueOf :: Int -> Int
valueOf x = hasOwnProperty x
`,
    },
    callers: [
      ['constructor', ['Proto.hasOwnProperty src/Proto.hs:7']],
      ['hasOwnProperty', ['Proto.valueOf src/Proto.hs:10']],
    ],
  },
  julia: {
    files: {
      'src/Proto.jl': `module Proto

struct constructor
    toString::Int
end

function hasOwnProperty(x)
    return valueOf(x)
end

function valueOf(x)
    return x + 1
end

end
`,
    },
    callers: [['valueOf', ['Proto.hasOwnProperty src/Proto.jl:8']]],
  },
  ocaml: {
    files: {
      'proto.ml': `let constructor x = x + 1

let hasOwnProperty x = constructor x

let valueOf x = hasOwnProperty x
`,
    },
    callers: [
      ['constructor', ['hasOwnProperty proto.ml:3']],
      ['hasOwnProperty', ['valueOf proto.ml:5']],
    ],
  },
  scala: {
    files: {
      'src/Proto.scala': `package proto

class Helper {
  def run(): Int = 1
}

class constructor {
  val toString: Helper = new Helper()

  def valueOf(): Int = hasOwnProperty()

  def hasOwnProperty(): Int = 1
}

object __proto__ {
  def apply(c: constructor): Int = c.valueOf()
}
`,
    },
    callers: [['constructor.hasOwnProperty', ['constructor.valueOf src/Proto.scala:10']]],
  },
};

let base: string | undefined;
const graphs: CodeGraph[] = [];
afterAll(async () => {
  await Promise.all(graphs.map((graph) => graph.close()));
  if (base) rmSync(base, { recursive: true, force: true });
});

async function indexProgram(language: string, program: Program): Promise<CodeGraph> {
  base ??= realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-code-graph-prototype-')));
  const root = path.join(base, language);
  for (const [file, text] of Object.entries(program.files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  const copy: FixtureCopy = {
    root,
    dataDir: path.join(base, 'data'),
    base,
    write: () => undefined,
    remove: () => undefined,
  };
  const graph = await indexedGraph(copy, { precise: false });
  graphs.push(graph);
  return graph;
}

describe('names that are also Object.prototype members', () => {
  it('has a program for every language the server reads', () => {
    expect(Object.keys(PROGRAMS).sort()).toEqual(
      languageSupport()
        .map((entry) => entry.language)
        .sort(),
    );
  });

  for (const [language, program] of Object.entries(PROGRAMS)) {
    it(`index ${language} completely and bind its calls`, async () => {
      const graph = await indexProgram(language, program);
      const [entry] = graph.roots;
      expect(entry?.index.progress.phase).toBe('ready');
      expect(entry?.index.failedFiles()).toEqual([]);
      // Resolved again from the facts stored as JSON, as after a restart that finds a run unfinished:
      // plain objects again, whose prototype a careless lookup would find.
      entry?.index.store.setMeta('resolving', '1');
      await graph.reindex();
      expect(entry?.index.failedFiles()).toEqual([]);
      const found = program.callers.map(([symbol, , file]) => [
        symbol,
        callersOf(graph, symbol, file).map((group) => `${group.caller} ${group.lines.join(' ')}`),
        ...(file !== undefined ? [file] : []),
      ]);
      expect(found).toEqual(program.callers);
    });
  }
});
