// SPDX-License-Identifier: MIT
#include "sqliteschema.h"

namespace syncscope {

// Times: *_us in µs (REAL), *_ns in integer nanoseconds; event ids are positions in
// the rank's traceEvents (the ids of the JSON outputs); host node ids are ET ids.
const char *sqliteTablesSql()
{
    return R"SQL(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE names (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE ranks (
  rank INTEGER PRIMARY KEY, host TEXT, device TEXT, exit_code INTEGER, pid INTEGER, world_size INTEGER,
  events INTEGER, host_nodes INTEGER, trace_start_ns INTEGER, trace_end_ns INTEGER,
  step_time_us REAL, critical_path_us REAL, critical_path_step INTEGER,
  link_mode TEXT, link_strategy TEXT, host_ops INTEGER, host_ops_linked INTEGER, host_ops_with_twin INTEGER,
  link_coverage_pct REAL, kineto_cpu_ops INTEGER, kineto_cpu_ops_linked INTEGER, gpu_ops INTEGER,
  gpu_ops_linked INTEGER, sync_edges INTEGER, sync_edges_inferred INTEGER, sync_wait_us REAL,
  clock_offset_us REAL, start_offset_us REAL, collective_wait_us REAL, collective_wait_caused_us REAL,
  last_arrivals INTEGER, work_delay_cost_us REAL, start_skew_cost_us REAL);
CREATE TABLE threads (rank INTEGER, pid INTEGER, tid INTEGER, name TEXT, events INTEGER,
  PRIMARY KEY (rank, pid, tid));
CREATE TABLE streams (rank INTEGER, pid INTEGER, stream INTEGER, role TEXT, kernels INTEGER, memcpys INTEGER,
  memsets INTEGER, busy_us REAL, PRIMARY KEY (rank, pid, stream));
CREATE TABLE events (
  rank INTEGER NOT NULL, id INTEGER NOT NULL, name_id INTEGER, cat_id INTEGER, kind TEXT, ph TEXT,
  pid INTEGER, tid INTEGER, stream INTEGER, device INTEGER, ts_us REAL, dur_us REAL, ts_ns INTEGER, dur_ns INTEGER,
  correlation INTEGER, external_id INTEGER, host_node INTEGER, parent_event INTEGER, launcher_event INTEGER);
CREATE VIEW events_named AS
  SELECT e.*, n.name AS name, c.name AS cat FROM events e
  LEFT JOIN names n ON n.id = e.name_id LEFT JOIN names c ON c.id = e.cat_id;
CREATE TABLE host_nodes (rank INTEGER NOT NULL, id INTEGER NOT NULL, name_id INTEGER, parent INTEGER,
  rf_id INTEGER, tid INTEGER, event INTEGER, et_plus_id INTEGER);
CREATE TABLE links (rank INTEGER, host_node INTEGER, cpu_event INTEGER, gpu_event INTEGER,
  launcher_event INTEGER, et_plus_id INTEGER);
CREATE TABLE link_deps (rank INTEGER, kind TEXT, from_event INTEGER, to_event INTEGER);
CREATE TABLE sync_edges (rank INTEGER, id INTEGER, kind TEXT, source TEXT, src_event INTEGER, dst_event INTEGER,
  sync_event INTEGER, gpu_to_gpu INTEGER, wait_us REAL);
CREATE TABLE critical_path (rank INTEGER, step INTEGER, seq INTEGER, edge_type TEXT, event INTEGER,
  from_event INTEGER, from_is_start INTEGER, to_event INTEGER, to_is_start INTEGER, duration_us REAL,
  bound_by TEXT);
CREATE TABLE steps (rank INTEGER, step_index INTEGER, step INTEGER, name TEXT, event INTEGER, start_us REAL,
  duration_us REAL, critical_path_us REAL, path_nodes INTEGER, is_window INTEGER);
CREATE TABLE breakdown_bound_by (rank INTEGER, step INTEGER, source TEXT, bound_by TEXT, duration_us REAL,
  percent REAL);
CREATE TABLE collectives (id INTEGER PRIMARY KEY, name TEXT, process_group TEXT, matched_by TEXT,
  complete INTEGER, participants INTEGER, et_type TEXT, busbw_type TEXT, last_arrival_rank INTEGER,
  first_arrival_us REAL, last_arrival_us REAL, spread_us REAL, wait_caused_us REAL, window_edge INTEGER,
  skew_from INTEGER);
CREATE TABLE collective_arrivals (collective INTEGER, rank INTEGER, event INTEGER, arrival_us REAL, end_us REAL,
  wait_us REAL, transfer_us REAL, kernel_us REAL, is_last INTEGER, late_us REAL, start_skew_us REAL,
  work_excess_us REAL, unexplained_us REAL, from_window_start INTEGER, message_bytes INTEGER, algbw_gbps REAL,
  busbw_gbps REAL);
CREATE TABLE root_causes (collective INTEGER, seq INTEGER, rank INTEGER, op TEXT, gpu INTEGER, start_us REAL,
  dur_us REAL, excess_us REAL);
CREATE TABLE delays (seq INTEGER, rank INTEGER, op TEXT, gpu INTEGER, direct_us REAL, propagated_us REAL,
  total_us REAL, first_start_us REAL);
CREATE TABLE job_critical_path (seq INTEGER, rank INTEGER, op TEXT, start_us REAL, dur_us REAL, bound_by TEXT);
)SQL";
}

const char *sqliteIndexesSql()
{
    return R"SQL(
CREATE UNIQUE INDEX events_by_id ON events (rank, id);
CREATE INDEX events_by_name ON events (rank, name_id);
CREATE INDEX events_by_ts ON events (rank, ts_ns);
CREATE UNIQUE INDEX host_nodes_by_id ON host_nodes (rank, id);
CREATE INDEX links_by_gpu ON links (rank, gpu_event);
CREATE INDEX sync_edges_by_dst ON sync_edges (rank, dst_event);
CREATE INDEX critical_path_by_step ON critical_path (rank, step, seq);
CREATE INDEX steps_by_step ON steps (rank, step);
CREATE INDEX collective_arrivals_by_collective ON collective_arrivals (collective, rank);
CREATE INDEX collective_arrivals_by_rank ON collective_arrivals (rank, collective);
CREATE INDEX names_by_name ON names (name);
)SQL";
}

} // namespace syncscope
