// The three outputs: a table for people (stdout), JSON and CSV for machines.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "result.hpp"

namespace bench {

void print_table(std::FILE* out, const RunInfo& info, const std::vector<Row>& rows);
// Both throw std::runtime_error when the file cannot be written.
void write_json(const std::string& path, const RunInfo& info, const std::vector<Row>& rows);
void write_csv(const std::string& path, const std::vector<Row>& rows);
// DIR/index.html (self-contained: inline CSS and SVG, no scripts, no network), plus
// DIR/results.json and DIR/results.csv.
void write_html_report(const std::string& dir, const RunInfo& info, const std::vector<Row>& rows);

// "n=1024 m=..." for the CSV column and the table's notes.
std::string sizes_string(const std::vector<std::pair<std::string, std::int64_t>>& sizes);

}  // namespace bench
