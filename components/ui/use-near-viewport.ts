"use client";

import { useEffect, useRef, useState } from "react";

/** A ref to put on an element, and whether it has come within 300 px of the viewport (then stays true): for loading heavy modules such as charts only when needed. */
export function useNearViewport<T extends Element>() {
  const ref = useRef<T>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element || near) return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), { rootMargin: "300px" });
    observer.observe(element);
    return () => observer.disconnect();
  }, [near]);
  return { ref, near };
}
