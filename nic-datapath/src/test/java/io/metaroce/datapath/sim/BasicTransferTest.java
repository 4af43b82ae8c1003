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
package io.metaroce.datapath.sim;

import io.metaroce.datapath.stream.TerminationCause;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BasicTransferTest
{
    @Test
    void shouldTransferExactlyOnceWhenFabricIsLossless()
    {
        final TransferScenario scenario = new TransferScenario().seed(42);
        scenario.planes = 2;
        scenario.entropy = 4;
        scenario.messageCount = 300;
        scenario.build();

        final boolean done = scenario.run(TimeUnit.SECONDS.toNanos(5));
        assertTrue(done, scenario::describe);
        assertNull(scenario.violation(), scenario::describe);
        assertEquals(TerminationCause.NORMAL, scenario.senderTermination[0], scenario::describe);
        System.out.println(scenario.describe());
    }
}
