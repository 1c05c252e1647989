/**
 * @module test/helpers/topic-answers
 * Answers on three topics (shipping costs, friendly support, a crashing app), each topic in varied
 * words: what the themes tests feed the real themes engine (fixture models) to get themes found,
 * and what the alert and digest tests use to get answers placed in a theme.
 */

/** Shipping is too expensive (10). */
export const SHIPPING = [
  "Shipping cost was way too high for such a small order.",
  "The delivery fee surprised me at checkout, shipping is expensive.",
  "Shipping costs more than the product itself, that is crazy.",
  "I hate the expensive shipping charges added at the end.",
  "Delivery charges were hidden until the last step, too expensive.",
  "Free shipping would make me order more often, the shipping fee is steep.",
  "The shipping price doubled my total, very expensive delivery.",
  "Expensive shipping, I almost cancelled the order because of the delivery cost.",
  "Please lower the shipping fees, they are far too expensive.",
  "Shipping was costly and the delivery fee was not shown upfront.",
];
/** The support team was helpful (10). */
export const SUPPORT = [
  "The support team was friendly and solved my problem quickly.",
  "Customer service answered my email within an hour, great help.",
  "Your support agent was patient and very helpful.",
  "Great customer support, they fixed my account issue fast.",
  "The help desk staff were kind and answered all my questions.",
  "Support replied quickly and the agent was really friendly.",
  "I love your customer service team, always helpful.",
  "The support chat agent resolved the refund in minutes, thank you.",
  "Friendly support staff, quick and helpful answers.",
  "Customer support was excellent and very responsive.",
];
/** The app crashes (8). */
export const APP = [
  "The app crashes every time I open the camera.",
  "The mobile app keeps crashing after the latest update.",
  "App freezes and crashes when I upload a photo.",
  "Since the update the app crashes on startup.",
  "The app is buggy and crashes constantly on my phone.",
  "Crashes in the app whenever I try to log in.",
  "The android app crashed three times today.",
  "App keeps freezing and then crashes, please fix the bugs.",
];
