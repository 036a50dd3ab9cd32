#pragma once
// A parser lent from the pool of kube/parserpool.h, for kube's decoders (simdjson stays private
// to kube).
#include "kube/parserpool.h"

#include <simdjson.h>

#include <memory>
#include <string>

namespace fieldscope::kube {

struct PooledParser {
    simdjson::ondemand::parser parser;
    std::string scratch; // a padded copy of a small document (a watch line), reused
};

// One parser for the lease's lifetime; every document and value read from it must be gone before
// the lease is. Not copyable; cheap (a mutex and a vector pop) next to any parse.
class ParserLease
{
public:
    ParserLease();
    ~ParserLease();
    ParserLease(const ParserLease &) = delete;
    ParserLease &operator=(const ParserLease &) = delete;
    simdjson::ondemand::parser &parser() { return m_entry->parser; }
    std::string &scratch() { return m_entry->scratch; }

private:
    std::unique_ptr<PooledParser> m_entry;
};

} // namespace fieldscope::kube
