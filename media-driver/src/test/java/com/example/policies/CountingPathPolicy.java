/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package com.example.policies;

import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathTable;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A path policy written outside the project, against its public interface only: round robin over the ACTIVE paths
 * of the table, a retransmission on the next ACTIVE path after the previous one; it counts the new DATA it placed in
 * a counter the test reads from another thread.
 */
public final class CountingPathPolicy implements PathPolicy
{
    private final PathTable paths;
    private final AtomicLong selections;
    private int cursor = -1;

    /**
     * A policy of one connection.
     *
     * @param paths      the connection's path table.
     * @param selections counts the choices of new DATA paths.
     */
    public CountingPathPolicy(final PathTable paths, final AtomicLong selections)
    {
        this.paths = paths;
        this.selections = selections;
    }

    /**
     * {@inheritDoc}
     */
    public int selectNew(final long nowNs)
    {
        selections.incrementAndGet();
        cursor = nextActive(cursor, NO_PATH);
        return cursor;
    }

    /**
     * {@inheritDoc}
     */
    public int selectRetransmit(final int previousPath, final long freshSinceNs, final long nowNs)
    {
        final int path = nextActive(previousPath, previousPath);
        if (NO_PATH == path && paths.isActive(previousPath))
        {
            return previousPath;
        }

        return path;
    }

    /**
     * {@inheritDoc}
     */
    public int selectForControl()
    {
        return nextActive(cursor, NO_PATH);
    }

    /**
     * {@inheritDoc}
     */
    public void onGoodEcho(final int path)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onRttSample(final int path, final long rttNs)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onAckSampled(final long nowNs, final long srttNs, final long baseRttNs, final long delayAllowanceNs)
    {
    }

    /**
     * The first ACTIVE path after from, in index order with wrap-around, other than excluded.
     */
    private int nextActive(final int from, final int excluded)
    {
        final int pathCount = paths.pathCount();
        for (int i = 1; i <= pathCount; i++)
        {
            final int path = Math.floorMod(from + i, pathCount);
            if (path != excluded && paths.isActive(path))
            {
                return path;
            }
        }

        return NO_PATH;
    }
}
