// Catch2 3 provides main(); this file only gives the static library a source.
