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
package io.metaroce.datapath;

/**
 * The local ids of the last {@value #CAPACITY} authenticated connections an engine freed. Their late datagrams are
 * sealed under keys that went with them: no key opens them, and read unopened their encrypted bodies look malformed,
 * so the seal boundary counts them as NO_CONNECTION instead (wire specification, MR-SEC-9).
 * <p>
 * Owned by the engine's thread; no allocation after construction.
 */
final class FreedKeyedIds
{
    /**
     * Ids remembered; the oldest is forgotten first.
     */
    static final int CAPACITY = 64;

    private final int[] ids = new int[CAPACITY];
    private int next;

    /**
     * An authenticated connection was freed.
     *
     * @param localId its local id, never 0.
     */
    void add(final int localId)
    {
        ids[next] = localId;
        next = (next + 1) % CAPACITY;
    }

    /**
     * Was an id one of the last authenticated connections freed? Asked only for ids no connection has.
     *
     * @param localId the id a datagram names.
     * @return true when it is remembered.
     */
    boolean contains(final int localId)
    {
        if (0 == localId)
        {
            return false;
        }
        for (final int id : ids)
        {
            if (id == localId)
            {
                return true;
            }
        }
        return false;
    }
}
