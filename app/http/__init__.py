"""What pages and API share over HTTP: headers, rate limits, database faults."""
