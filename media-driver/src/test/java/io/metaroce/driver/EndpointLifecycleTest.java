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
package io.metaroce.driver;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EndpointLifecycleTest
{
    private final EndpointLifecycle lifecycle = new EndpointLifecycle();

    @Test
    void shouldNotCloseWhenNoCloseRequested()
    {
        assertTrue(lifecycle.isOpen());
        assertFalse(lifecycle.tryBeginClose());
        assertFalse(lifecycle.tryReopen());
        assertTrue(lifecycle.isOpen());
    }

    @Test
    void shouldKeepEndpointWhenReopenedBeforeAgentActs()
    {
        lifecycle.requestClose();
        assertFalse(lifecycle.isOpen());
        assertTrue(lifecycle.tryReopen());
        assertFalse(lifecycle.tryBeginClose(), "the agent's queued close finds nothing to do");
        assertTrue(lifecycle.isOpen());
    }

    @Test
    void shouldRefuseReopenWhenAgentClaimedClose()
    {
        lifecycle.requestClose();
        assertTrue(lifecycle.tryBeginClose());
        assertFalse(lifecycle.tryReopen());
        assertFalse(lifecycle.isClosed());
        lifecycle.onClosed();
        lifecycle.awaitClosed();
        assertTrue(lifecycle.isClosed());
        assertFalse(lifecycle.tryBeginClose(), "a second queued close finds it closed");
    }
}
