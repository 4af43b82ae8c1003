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
package io.metaroce.datapath.io;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;

class ForwardingPacketTransportTest
{
    @Test
    void shouldForwardEveryMethodOfTheTransportDefaultMethodsIncluded()
    {
        // A default method a decorator does not forward answers with its default (no latency queue, no address)
        // instead of the wrapped transport's: the sealing decorator lost the sender's address that way.
        for (final Method method : PacketTransport.class.getMethods())
        {
            if (Modifier.isStatic(method.getModifiers()))
            {
                continue;
            }
            final Method forwarding = assertDoesNotThrow(
                () -> ForwardingPacketTransport.class.getDeclaredMethod(method.getName(), method.getParameterTypes()),
                method.toString());
            assertFalse(Modifier.isAbstract(forwarding.getModifiers()), method.toString());
        }
    }
}
