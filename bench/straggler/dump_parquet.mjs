// SPDX-License-Identifier: MIT
// node dump_parquet.mjs IN.parquet OUT.json: the parquet's rows as JSON records
// (hyparquet, installed outside the repo; NODE_PATH points at it).
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet'
import fs from 'fs'
const [,, inp, out] = process.argv
const file = await asyncBufferFromFile(inp)
const rows = await parquetReadObjects({ file })
const norm = rows.map(r => { const o = {}; for (const [k, v] of Object.entries(r)) o[k] = typeof v === 'bigint' ? Number(v) : v; return o })
fs.writeFileSync(out, JSON.stringify(norm))
console.log(inp, rows.length, 'rows')
