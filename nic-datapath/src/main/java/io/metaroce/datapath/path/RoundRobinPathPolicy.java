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
package io.metaroce.datapath.path;

/**
 * Plain round robin over the ACTIVE paths, a baseline for the weighted spray of {@link PathSelector}: a fixed cycle
 * that visits every plane at its first entropy value, then every plane at its second, and so on, and gives each
 * packet (new DATA, retransmission or control) the next ACTIVE path of the cycle. It ignores congestion skip marks,
 * plane delays and good echoes; a retransmission takes the next ACTIVE path other than the previous transmission's.
 * <p>
 * Single-threaded; no allocation after construction; no randomness; a selection visits each path at most once.
 */
public final class RoundRobinPathPolicy implements PathPolicy
{
    private final PathTable paths;
    private final int[] order;
    private int cursor;

    /**
     * Build the policy over a table.
     *
     * @param paths the table whose states it reads.
     */
    public RoundRobinPathPolicy(final PathTable paths)
    {
        this.paths = paths;
        final int planeCount = paths.planeCount();
        final int pathsPerPlane = paths.pathsPerPlane();
        this.order = new int[paths.pathCount()];
        int i = 0;
        for (int entropy = 0; entropy < pathsPerPlane; entropy++)
        {
            for (int plane = 0; plane < planeCount; plane++)
            {
                order[i++] = plane * pathsPerPlane + entropy;
            }
        }
    }

    /**
     * A supplier of round-robin policies.
     *
     * @return the supplier.
     */
    public static PathPolicySupplier supplier()
    {
        return (paths, random) -> new RoundRobinPathPolicy(paths);
    }

    /**
     * {@inheritDoc}
     */
    public int selectNew(final long nowNs)
    {
        return next(NO_PATH);
    }

    /**
     * {@inheritDoc}
     */
    public int selectRetransmit(final int previousPath, final long freshSinceNs, final long nowNs)
    {
        final int path = next(previousPath);
        if (NO_PATH == path && previousPath >= 0 && paths.isActive(previousPath))
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
        return next(NO_PATH);
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

    private int next(final int excluded)
    {
        final int[] order = this.order;
        final int count = order.length;
        for (int i = 0; i < count; i++)
        {
            final int path = order[cursor];
            if (++cursor == count)
            {
                cursor = 0;
            }
            if (path != excluded && paths.isActive(path))
            {
                return path;
            }
        }

        return NO_PATH;
    }
}
