// replaced by the client sources
