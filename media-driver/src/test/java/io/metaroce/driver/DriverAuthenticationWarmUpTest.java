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

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The handshake warm-up a driver with a key file runs at its start: once per JVM, every handshake completed.
 */
class DriverAuthenticationWarmUpTest
{
    @Test
    void shouldWarmUpOncePerJvm()
    {
        // another test of this JVM may have started an authenticating driver first
        final int first = DriverAuthentication.warmUpOnce();
        assertTrue(List.of(0, DriverAuthentication.WARM_UP_HANDSHAKES).contains(first), "first: " + first);
        assertEquals(0, DriverAuthentication.warmUpOnce());
    }
}
