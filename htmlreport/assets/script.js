(function(){
document.querySelectorAll("svg.chart .lgi").forEach(function(g){
g.addEventListener("click",function(){
var k=g.getAttribute("data-s");
g.classList.toggle("off");
g.ownerSVGElement.querySelectorAll('g.s[data-s="'+k+'"]').forEach(function(s){s.classList.toggle("off");});
});
});
})();
